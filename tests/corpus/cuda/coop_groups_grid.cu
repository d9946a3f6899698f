// Grid-wide cooperative groups: this_grid().sync() between two phases.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void two_phase(float *data, float *partial, int n) {
  cg::grid_group grid = cg::this_grid();
  float s = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) s += data[i];
  partial[grid.thread_rank()] = s;
  grid.sync();
  if (grid.thread_rank() == 0) {
    float t = 0.f;
    for (unsigned k = 0; k < grid.size(); ++k) t += partial[k];
    data[0] = t;
  }
}
