// N-body force step with float4 positions in shared memory tiles, rsqrtf, and integration.
__device__ float3 body_interaction(float4 bi, float4 bj, float3 a) {
  float3 r = {bj.x - bi.x, bj.y - bi.y, bj.z - bi.z};
  float d2 = r.x * r.x + r.y * r.y + r.z * r.z + 1e-9f;
  float inv = rsqrtf(d2);
  float s = bj.w * inv * inv * inv;
  a.x += r.x * s; a.y += r.y * s; a.z += r.z * s;
  return a;
}
__global__ void nbody_step(float4 *pos, float4 *vel, int n, float dt) {
  extern __shared__ float4 sh[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = {0.f, 0.f, 0.f};
  for (int tile = 0; tile < (n + blockDim.x - 1) / blockDim.x; ++tile) {
    int j = tile * blockDim.x + threadIdx.x;
    sh[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < blockDim.x; ++k) acc = body_interaction(p, sh[k], acc);
    __syncthreads();
  }
  if (i < n) {
    float4 v = vel[i];
    v.x += acc.x * dt; v.y += acc.y * dt; v.z += acc.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    vel[i] = v; pos[i] = p;
  }
}
