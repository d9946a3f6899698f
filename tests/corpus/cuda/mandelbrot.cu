// Mandelbrot escape-time loop with data-dependent trip count, uchar4 color output, double variant.
__global__ void mandelbrot(uchar4 *img, int w, int h, float x0, float y0, float scale, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cr = x0 + px * scale, ci = y0 + py * scale, zr = 0.f, zi = 0.f;
  int it = 0;
  while (zr * zr + zi * zi < 4.f && it < max_iter) { float t = zr * zr - zi * zi + cr; zi = 2.f * zr * zi + ci; zr = t; ++it; }
  unsigned char c = (unsigned char)(255 * it / max_iter);
  img[py * w + px] = make_uchar4(c, c / 2, 255 - c, 255);
}

__global__ void mandelbrot_double(int *iters, int w, double x0, double y0, double scale, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y;
  double cr = x0 + px * scale, ci = y0 + py * scale, zr = 0.0, zi = 0.0;
  int it = 0;
  for (; it < max_iter && zr * zr + zi * zi < 4.0; ++it) { double t = zr * zr - zi * zi + cr; zi = 2.0 * zr * zi + ci; zr = t; }
  iters[py * w + px] = it;
}
