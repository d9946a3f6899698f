import pytest
from functional_harness import Gpu


@pytest.fixture
def gpu():
    g = Gpu()
    yield g
    g.close()
