"""Code every backend shares and no backend owns: the launch outcome and fault types
(``outcome``), the one device-printf formatter (``printf_format``) and the numbers shared with C
and MSL (``codes``, generating ``include/cumetal_codes.h``). Backends import from here and from
``cumetal.ir``, never from one another (tests/backends/test_backend_imports.py)."""
