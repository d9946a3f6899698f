// Mutually recursive device functions (Metal has no call stack: backends/apple/recursion.py merges
// each recursive set into one function over an explicit stack).

// A recursive-descent evaluator: expr -> term -> factor -> expr ('(' ... ')'), a three-function cycle,
// each level with its own locals. Grammar: expr = term {('+'|'-') term}; term = factor {'*' factor};
// factor = digit | '-' factor | '(' expr ')'.
struct Cursor { const char *s; int at; };
__device__ __noinline__ long long expr(Cursor *c);
__device__ __noinline__ long long factor(Cursor *c) {
    char ch = c->s[c->at];
    if (ch == '(') {
        c->at++;
        long long v = expr(c);
        c->at++;  // ')'
        return v;
    }
    if (ch == '-') {
        c->at++;
        return -factor(c);
    }
    c->at++;
    return ch - '0';
}
__device__ __noinline__ long long term(Cursor *c) {
    long long v = factor(c);
    while (c->s[c->at] == '*') {
        c->at++;
        v *= factor(c);
    }
    return v;
}
__device__ __noinline__ long long expr(Cursor *c) {
    long long v = term(c);
    for (char op = c->s[c->at]; op == '+' || op == '-'; op = c->s[c->at]) {
        c->at++;
        long long r = term(c);
        v = op == '+' ? v + r : v - r;
    }
    return v;
}
extern "C" __global__ void evaluate(const char *text, const int *starts, long long *out, int *ends, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    Cursor c{text, starts[t]};
    out[t] = expr(&c);
    ends[t] = c.at;
}

// Hofstadter's female and male sequences: F(n) = n - M(F(n-1)), M(n) = n - F(M(n-1)), F(0) = 1,
// M(0) = 0, two recursive calls per level, results that depend on both; a float and a double
// argument slot so the merged function carries several types.
__device__ __noinline__ int male(int n, float scale);
__device__ __noinline__ int female(int n, double bias) {
    if (n == 0) return 1 + (int)bias;
    return n - male(female(n - 1, bias), 1.0f);
}
__device__ __noinline__ int male(int n, float scale) {
    if (n == 0) return 0;
    return n - female(male(n - 1, scale), 0.0) * (int)scale;
}
extern "C" __global__ void hofstadter(int *f, int *m, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    f[t] = female(t, 0.0);
    m[t] = male(t, 1.0f);
}

// Recursion through virtual functions (indirect calls): an expression tree whose nodes evaluate their
// children through eval(); the vtable calls are made direct before the recursive set is merged.
struct Node {
    __device__ virtual long long eval(const long long *vars) const = 0;
};
struct Leaf : Node {
    int var;
    __device__ explicit Leaf(int v) : var(v) {}
    __device__ long long eval(const long long *vars) const override { return vars[var]; }
};
struct Add : Node {
    const Node *a, *b;
    __device__ Add(const Node *x, const Node *y) : a(x), b(y) {}
    __device__ long long eval(const long long *vars) const override { return a->eval(vars) + b->eval(vars); }
};
struct Mul : Node {
    const Node *a, *b;
    __device__ Mul(const Node *x, const Node *y) : a(x), b(y) {}
    __device__ long long eval(const long long *vars) const override { return a->eval(vars) * b->eval(vars) - 1; }
};
// A tree of depth `depth` built in the thread's own storage: ((x0 + x1) * (x1 + x2)) nested.
extern "C" __global__ void virtual_tree(const long long *vars, long long *out, int depth) {
    Leaf leaves[3] = {Leaf(0), Leaf(1), Leaf(2)};
    Add adds[16] = {Add(&leaves[0], &leaves[1]), Add(&leaves[1], &leaves[2]), Add(&leaves[0], &leaves[1]),
                    Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]),
                    Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]),
                    Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]),
                    Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]), Add(&leaves[0], &leaves[1]),
                    Add(&leaves[0], &leaves[1])};
    Mul muls[8] = {Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1]),
                   Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1]), Mul(&adds[0], &adds[1])};
    const Node *top = &muls[0];
    for (int d = 1; d < depth && d < 8; ++d) {  // muls[d] = (muls[d-1] + x_(d%3)) * leaf
        adds[d + 1] = Add(top, &leaves[d % 3]);
        muls[d] = Mul(&adds[d + 1], &leaves[(d + 1) % 3]);
        top = &muls[d];
    }
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = top->eval(vars + 3 * t);
}
