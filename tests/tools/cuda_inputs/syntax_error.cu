extern "C" __global__ void broken(int *p) {
  int v = p[0]
  p[1] = v;
}
