"""The Metal runtime backend: the device protocol on an Apple GPU through PyObjC (docs/metal-backend.md)."""

from cumetal.devices.metal.bridge import Bridge, MetalFactory, MetalUnavailable, PyObjCFactory
from cumetal.devices.metal.device import MetalDevice, MetalInitError, open_metal_device

__all__ = ["Bridge", "MetalDevice", "MetalFactory", "MetalInitError", "MetalUnavailable", "PyObjCFactory",
           "open_metal_device"]
