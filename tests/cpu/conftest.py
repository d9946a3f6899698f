import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _quiet_numpy():
    # the engine runs launches under np.errstate(all="ignore"); direct calls of its helpers too
    with np.errstate(all="ignore"):
        yield
