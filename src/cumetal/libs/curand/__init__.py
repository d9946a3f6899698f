"""cuRAND on CuMetal (first increment: the reference generators, checked against NVIDIA goldens;
the host and device APIs are not wired yet — see docs/libraries.md)."""
