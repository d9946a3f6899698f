// A -rdc program split over translation units: shapes.cu holds only __device__ functions (no kernel,
// no device variable), so its host object registers nothing; main.cu calls them and uses its class
// through a virtual function across the unit boundary.
struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
__device__ Shape *make_shape(int kind, float size);
__device__ float twice(float v);
