// Texture and surface objects: tex1Dfetch, tex2D, tex3D, tex2DLod, surf2Dwrite/surf2Dread.
__global__ void tex_sample(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                           float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float a = tex1Dfetch<float>(t1, y * w + x);
  float b = tex2D<float>(t2, x + 0.5f, y + 0.5f);
  float4 c = tex3D<float4>(t3, x * 0.1f, y * 0.1f, 0.5f);
  float d = tex2DLod<float>(t2, x * 0.5f, y * 0.5f, 1.0f);
  out[y * w + x] = a + b + c.x + c.w + d;
}

__global__ void surf_blur(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) { float v; surf2Dread(&v, src, (x + dx) * 4, y + dy); s += v; }
  surf2Dwrite(s / 9.f, dst, x * 4, y);
}
