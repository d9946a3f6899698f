// Structs passed by value to kernels and to noinline device functions, returned by value.
struct Vec3 { float x, y, z; };
struct Camera { Vec3 origin, dir; float fov; int width, height; };
struct __align__(16) Packed { int a; char b; double c; short d[3]; };

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
__device__ __noinline__ Packed bump(Packed p, int k) { p.a += k; p.c *= 2.0; p.d[k % 3] = (short)k; return p; }

__global__ void rays(Camera cam, Vec3 *out) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  if (px >= cam.width * cam.height) return;
  Vec3 d = {cam.dir.x + px * cam.fov, cam.dir.y, cam.dir.z};
  out[px] = cross(cam.origin, d);
}

__global__ void packed(Packed p, Packed *out) { out[threadIdx.x] = bump(p, threadIdx.x); }
