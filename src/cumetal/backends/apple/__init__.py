"""What the Apple targets share (the MSL and AIR back ends, msl-sim, air-sim and the Metal device):
the Metal argument ABI (``abi``: bindings, launch_info words, shared-memory and stack sizes,
fault record) and device printf's ring buffer (``printf_ring``: format table, records, decoder).
The AIR and MSL back ends import this package, never each other."""
