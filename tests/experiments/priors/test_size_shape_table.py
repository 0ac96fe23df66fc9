"""The shipped empirical size shape (``sim/data/size_shape.csv``, issue 31) is what
:func:`experiments.priors.sizes.shape_residuals` computes from the trajectories."""

import numpy as np
import pytest

from experiments.priors.sizes import shape_residuals, shape_table_text
from experiments.vista.size_law import tool_result_sizes
from sim.tasks import size_shape


def test_shipped_table_equals_the_computed_one():
    sizes = tool_result_sizes()
    z = shape_residuals(sizes)
    np.testing.assert_array_equal(size_shape.shape_residuals(), z)
    assert size_shape.TABLE_PATH.read_text() == shape_table_text(sizes)
    # standardized: median 0, population sd 1, one residual per real tool result
    assert z.size == 418 and np.median(z) == pytest.approx(0, abs=1e-12)
    assert z.std() == pytest.approx(1, abs=1e-12)
    # by hand for two results: the 22-token tie and the largest
    logs = np.log(sizes)
    assert z.max() == pytest.approx((np.log(sizes.max()) - np.log(24)) / logs.std())
    assert np.sum(np.isclose(z, (np.log(22) - np.log(24)) / logs.std())) == 43


@pytest.mark.parametrize("bad", [[5.0], [3.0, 3.0], [1.0, -2.0]])
def test_shape_residuals_rejects_bad_input(bad):
    with pytest.raises(ValueError, match="sizes"):
        shape_residuals(bad)
