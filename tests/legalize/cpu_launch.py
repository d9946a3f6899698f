"""Route the cpu device's launches through a test's function (the legalizing launch).

The cpu device may keep the launch function it first looked up (``CpuDevice._run`` caches it per
device), so patching ``cumetal.backends.cpu.launch`` alone would not reach a device that already
launched: the cached function is dropped from every live cpu device too (monkeypatch restores it).
With ``CUMETAL_CPU_ENGINE=jit`` the cpu device is a ``CpuJitDevice``, whose launcher is replaced too.
The driver starts again on a fresh ``cpu`` device (restored afterwards): a device an earlier test left
behind (another backend's) would run the launches without the test's function."""

from __future__ import annotations

import gc

import cumetal.backends.cpu


def patch_cpu_launch(monkeypatch, launch) -> None:
    from cumetal.devices.cpu_device import CpuDevice
    from cumetal.devices.cpu_jit_device import CpuJitDevice
    from cumetal.driver.state import STATE

    monkeypatch.setenv("CUMETAL_BACKEND", "cpu")
    for name, value in (("initialized", False), ("device", None), ("primary", None), ("primary_refs", 0)):
        monkeypatch.setattr(STATE, name, value)
    monkeypatch.setattr(cumetal.backends.cpu, "launch", launch)
    # CUMETAL_CPU_ENGINE=jit: the cpu device is the compiled backend's; its launches go through the
    # test's function too (these tests check legalization on the reference engine)
    monkeypatch.setattr(CpuJitDevice, "_launcher", lambda self: launch)
    for obj in gc.get_objects():
        # type(), not isinstance(): some live objects (numpy's NpzFile.f) raise on __class__
        if issubclass(type(obj), CpuDevice) and "_launch_fn" in obj.__dict__:
            monkeypatch.delitem(obj.__dict__, "_launch_fn")
