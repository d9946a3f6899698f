import pytest
from cuda_headers_harness import Gpu


@pytest.fixture(scope="module")
def gpu():
    g = Gpu()
    yield g
    g.close()
