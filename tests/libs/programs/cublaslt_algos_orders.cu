// CuMetal test program, also built with nvcc and run on an H100 to make its golden
// (scripts/make_cublaslt_algo_goldens.py -> tests/libs/golden/cublaslt_algos_orders_h100.txt):
//  - the algorithm API: cublasLtMatmulAlgoGetIds for common type combinations, which ids
//    cublasLtMatmulAlgoInit takes, each id's configuration after Init and its capabilities,
//    cublasLtMatmulAlgoCheck and cublasLtMatmul with it (default, a capability tile/stage, split-K),
//    compared byte for byte with the matmul run without an algorithm;
//  - the IMMA orders CUBLASLT_ORDER_COL4_4R2_8C and COL32_2R_4R4: where cublasLtMatrixTransform puts
//    each element (byte dumps of matrices holding their row / column numbers), which leading
//    dimensions it takes, and which int8 matmul order combinations cublasLtMatmul takes.
// Prints "key value..." lines; the test compares them with the H100's.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    cublasComputeType_t compute;
    cudaDataType scale, a, b, c, d;
} Combo;

static const Combo COMBOS[] = {
    {"f32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
    {"tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
    {"f16_f32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F},
    {"f16_f16", CUBLAS_COMPUTE_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F},
    {"bf16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF},
    {"f64", CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F},
    {"c32f", CUBLAS_COMPUTE_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F},
    {"i8_i32", CUBLAS_COMPUTE_32I, CUDA_R_32I, CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUDA_R_32I},
    {"i8_i8", CUBLAS_COMPUTE_32I, CUDA_R_32F, CUDA_R_8I, CUDA_R_8I, CUDA_R_8I, CUDA_R_8I},
    {"e4m3_bf16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_16BF},
    {"f32_pedantic", CUBLAS_COMPUTE_32F_PEDANTIC, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
    {"fast16f", CUBLAS_COMPUTE_32F_FAST_16F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
    {"fast16bf", CUBLAS_COMPUTE_32F_FAST_16BF, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F},
    {"f16_f32out", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_32F},
    {"bf16_f32out", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F},
    {"c64f", CUBLAS_COMPUTE_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F},
    {"e4m3_f32", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_32F, CUDA_R_32F},
    {"e4m3_e4m3", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_8F_E4M3},
    {"e5m2xe4m3_bf16", CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E5M2, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_16BF},
};
enum { NCOMBO = sizeof COMBOS / sizeof COMBOS[0], MAXID = 128, DIM = 64 };

static size_t type_size(cudaDataType t) {
    switch (t) {
    case CUDA_C_64F: return 16;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    default: return 1;
    }
}

/* count elements of small integers (-2..2) in type t, from a seed */
static void fill(cudaDataType t, void *host, int count, unsigned seed) {
    static const uint16_t H[5] = {0xC000, 0xBC00, 0, 0x3C00, 0x4000};
    static const uint16_t BF[5] = {0xC000, 0xBF80, 0, 0x3F80, 0x4000};
    static const uint8_t E4[5] = {0xC0, 0xB8, 0, 0x38, 0x40};
    static const uint8_t E5[5] = {0xC0, 0xBC, 0, 0x3C, 0x40};
    for (int i = 0; i < count; i++) {
        seed = seed * 1103515245u + 12345u;
        int v = (int)((seed >> 16) % 5) - 2;
        switch (t) {
        case CUDA_R_32F: ((float *)host)[i] = (float)v; break;
        case CUDA_R_64F: ((double *)host)[i] = (double)v; break;
        case CUDA_C_32F: ((float *)host)[2 * i] = (float)v; ((float *)host)[2 * i + 1] = (float)((v + 3) % 5 - 2); break;
        case CUDA_R_16F: ((uint16_t *)host)[i] = H[v + 2]; break;
        case CUDA_R_16BF: ((uint16_t *)host)[i] = BF[v + 2]; break;
        case CUDA_R_32I: ((int32_t *)host)[i] = v; break;
        case CUDA_R_8F_E4M3: ((uint8_t *)host)[i] = E4[v + 2]; break;
        case CUDA_R_8F_E5M2: ((uint8_t *)host)[i] = E5[v + 2]; break;
        case CUDA_C_64F: ((double *)host)[2 * i] = v; ((double *)host)[2 * i + 1] = (double)((v + 3) % 5 - 2); break;
        default: ((int8_t *)host)[i] = (int8_t)v; break;
        }
    }
}

static void *dev_copy(const void *host, size_t bytes) {
    void *p = NULL;
    cudaMalloc(&p, bytes);
    cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
    return p;
}

static unsigned long long fnv(const unsigned char *p, size_t n) {
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols, int64_t ld, int32_t order) {
    cublasLtMatrixLayout_t l = NULL;
    if (cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld) != CUBLAS_STATUS_SUCCESS) return NULL;
    cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order);
    return l;
}

static cublasLtHandle_t lt;
static void *workspace;
static const size_t WS = 32u << 20;

/* one TN matmul of DIM x DIM x DIM in a combo's types; D bytes into out; returns the status */
typedef struct {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    void *a, *b, *c, *d;
    size_t dbytes;
} Problem;

static void problem_make(const Combo *cb, Problem *p) {
    size_t n = DIM * DIM;
    void *h = malloc(n * 16);
    fill(cb->a, h, n, 1);
    p->a = dev_copy(h, n * type_size(cb->a));
    fill(cb->b, h, n, 2);
    p->b = dev_copy(h, n * type_size(cb->b));
    fill(cb->c, h, n, 3);
    p->c = dev_copy(h, n * type_size(cb->c));
    free(h);
    p->dbytes = n * type_size(cb->d);
    cudaMalloc(&p->d, p->dbytes);
    cublasLtMatmulDescCreate(&p->desc, cb->compute, cb->scale);
    int32_t t = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    p->la = layout(cb->a, DIM, DIM, DIM, CUBLASLT_ORDER_COL);
    p->lb = layout(cb->b, DIM, DIM, DIM, CUBLASLT_ORDER_COL);
    p->lc = layout(cb->c, DIM, DIM, DIM, CUBLASLT_ORDER_COL);
    p->ld = layout(cb->d, DIM, DIM, DIM, CUBLASLT_ORDER_COL);
}

static cublasStatus_t problem_run(const Combo *cb, Problem *p, const cublasLtMatmulAlgo_t *algo, unsigned char *out) {
    double one_d = 1.0, zero_d = 0.0;
    float one_f = 1.0f, zero_f = 0.0f;
    int32_t one_i = 1, zero_i = 0;
    uint16_t one_h = 0x3C00, zero_h = 0;
    float one_c[2] = {1.0f, 0.0f}, zero_c[2] = {0.0f, 0.0f};
    double one_z[2] = {1.0, 0.0}, zero_z[2] = {0.0, 0.0};
    const void *alpha = &one_f, *beta = &zero_f;
    if (cb->scale == CUDA_R_64F) alpha = &one_d, beta = &zero_d;
    if (cb->scale == CUDA_R_32I) alpha = &one_i, beta = &zero_i;
    if (cb->scale == CUDA_R_16F) alpha = &one_h, beta = &zero_h;
    if (cb->scale == CUDA_C_32F) alpha = one_c, beta = zero_c;
    if (cb->scale == CUDA_C_64F) alpha = one_z, beta = zero_z;
    cudaMemset(p->d, 0x5A, p->dbytes);
    cublasStatus_t st = cublasLtMatmul(lt, p->desc, alpha, p->a, p->la, p->b, p->lb, beta, p->c, p->lc, p->d, p->ld,
                                       algo, workspace, WS, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(out, p->d, p->dbytes, cudaMemcpyDeviceToHost);
    return st;
}

static void print_list(const char *key, const int *v, int n) {
    printf("%s %d", key, n);
    for (int i = 0; i < n; i++) printf(" %d", v[i]);
    printf("\n");
}

static const int SCALAR_CAPS[] = {0, 1, 2, 3, 4, 5, 7, 10, 11, 12, 14, 15, 16, 17, 18, 19, 21, 22};

/* an attribute's value as the library sizes it: a size query first, then exactly that size */
static int get_attr(const cublasLtMatmulAlgo_t *algo, int cap, int attr, unsigned long long *value, size_t *size) {
    size_t w = 0;
    cublasStatus_t s = cap ? cublasLtMatmulAlgoCapGetAttribute(algo, (cublasLtMatmulAlgoCapAttributes_t)attr, NULL, 0, &w)
                           : cublasLtMatmulAlgoConfigGetAttribute(algo, (cublasLtMatmulAlgoConfigAttributes_t)attr, NULL,
                                                                  0, &w);
    if (s != CUBLAS_STATUS_SUCCESS) return (int)s;
    if (w > 8) return -1;
    unsigned char buf[8] = {0};
    s = cap ? cublasLtMatmulAlgoCapGetAttribute(algo, (cublasLtMatmulAlgoCapAttributes_t)attr, buf, w, &w)
            : cublasLtMatmulAlgoConfigGetAttribute(algo, (cublasLtMatmulAlgoConfigAttributes_t)attr, buf, w, &w);
    if (s != CUBLAS_STATUS_SUCCESS) return (int)s;
    unsigned long long v = 0;
    memcpy(&v, buf, w);
    if (w == 4 && (buf[3] & 0x80)) v |= 0xFFFFFFFF00000000ull; /* a negative int32 */
    *value = v;
    *size = w;
    return 0;
}

static void algorithms(const Combo *cb) {
    char key[160];
    int ids[MAXID], n = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetIds(lt, cb->compute, cb->scale, cb->a, cb->b, cb->c, cb->d, MAXID, ids, &n);
    printf("getids/%s %d\n", cb->name, (int)st);
    snprintf(key, sizeof key, "ids/%s", cb->name);
    print_list(key, ids, st == CUBLAS_STATUS_SUCCESS ? n : 0);
    if (st != CUBLAS_STATUS_SUCCESS) n = 0;
    int by_status[32][MAXID], counts_by[32] = {0};
    for (int id = 0; id < MAXID; id++) {
        cublasLtMatmulAlgo_t algo;
        int s = (int)cublasLtMatmulAlgoInit(lt, cb->compute, cb->scale, cb->a, cb->b, cb->c, cb->d, id, &algo);
        s = s < 0 || s > 31 ? 31 : s;
        by_status[s][counts_by[s]++] = id;
    }
    snprintf(key, sizeof key, "init_ok/%s", cb->name);
    print_list(key, by_status[0], counts_by[0]);
    for (int s = 1; s < 32; s++)
        if (counts_by[s]) {
            snprintf(key, sizeof key, "init_refused/%s/%d", cb->name, s);
            print_list(key, by_status[s], counts_by[s]);
        }
    Problem p;
    problem_make(cb, &p);
    unsigned char *ref = (unsigned char *)malloc(p.dbytes), *got = (unsigned char *)malloc(p.dbytes);
    printf("plain/%s %d\n", cb->name, (int)problem_run(cb, &p, NULL, ref));
    {   /* an algorithm initialised for another type combination */
        const Combo *o = &COMBOS[(cb - COMBOS + 1) % NCOMBO];
        int oids[MAXID], on = 0;
        cublasLtMatmulAlgoGetIds(lt, o->compute, o->scale, o->a, o->b, o->c, o->d, MAXID, oids, &on);
        cublasLtMatmulAlgo_t algo;
        cublasLtMatmulAlgoInit(lt, o->compute, o->scale, o->a, o->b, o->c, o->d, on ? oids[0] : 0, &algo);
        cublasLtMatmulHeuristicResult_t res;
        printf("foreign/%s %s/%d check %d\n", cb->name, o->name, on ? oids[0] : 0,
               (int)cublasLtMatmulAlgoCheck(lt, p.desc, p.la, p.lb, p.lc, p.ld, &algo, &res));
    }
    for (int i = 0; i < n; i++) {
        int id = ids[i];
        cublasLtMatmulAlgo_t algo;
        cublasLtMatmulAlgoInit(lt, cb->compute, cb->scale, cb->a, cb->b, cb->c, cb->d, id, &algo);
        printf("config/%s/%d", cb->name, id);
        for (int attr = 0; attr <= 8; attr++) {
            unsigned long long v = 0;
            size_t w = 0;
            int s = get_attr(&algo, 0, attr, &v, &w);
            if (s == 0) printf(" %d:%lld/%zu", attr, (long long)v, w);
            else printf(" %d:st%d", attr, s);
        }
        printf("\n");
        printf("caps/%s/%d", cb->name, id);
        for (size_t c = 0; c < sizeof SCALAR_CAPS / sizeof SCALAR_CAPS[0]; c++) {
            unsigned long long v = 0;
            size_t w = 0;
            int s = get_attr(&algo, 1, SCALAR_CAPS[c], &v, &w);
            if (s == 0) printf(" %d:%lld/%zu", SCALAR_CAPS[c], (long long)v, w);
            else printf(" %d:st%d", SCALAR_CAPS[c], s);
        }
        printf("\n");
        static uint32_t lists[2][1024];
        int counts[2] = {0, 0};
        memset(lists, 0, sizeof lists);
        for (int which = 0; which < 2; which++) {
            cublasLtMatmulAlgoCapAttributes_t attr = which ? CUBLASLT_ALGO_CAP_STAGES_IDS : CUBLASLT_ALGO_CAP_TILE_IDS;
            size_t w = 0;
            cublasLtMatmulAlgoCapGetAttribute(&algo, attr, NULL, 0, &w);
            if (w > sizeof lists[which]) printf("long_list/%s/%d %d %zu\n", cb->name, id, which, w);
            if (w > sizeof lists[which]) w = 0;
            if (w && cublasLtMatmulAlgoCapGetAttribute(&algo, attr, lists[which], w, &w) != CUBLAS_STATUS_SUCCESS) w = 0;
            counts[which] = (int)(w / 4);
            static int v[1024];
            for (int j = 0; j < counts[which]; j++) v[j] = (int)lists[which][j];
            snprintf(key, sizeof key, "%s/%s/%d", which ? "stages" : "tiles", cb->name, id);
            print_list(key, v, counts[which]);
        }
        cublasLtMatmulHeuristicResult_t res;
        memset(&res, 0, sizeof res);
        cublasStatus_t cs = cublasLtMatmulAlgoCheck(lt, p.desc, p.la, p.lb, p.lc, p.ld, &algo, &res);
        cublasStatus_t ms = problem_run(cb, &p, &algo, got);
        printf("default/%s/%d check %d matmul %d same %d\n", cb->name, id, (int)cs, (int)ms,
               ms == 0 && memcmp(got, ref, p.dbytes) == 0);
        if (id == 66) { /* NVIDIA's cublasLt 13.0 crashed (SIGSEGV) in an AlgoCheck of algorithm 66 */
            printf("search/%s/%d skipped\n", cb->name, id);
            continue;
        }
        /* every listed tile x stage (UNDEFINED when a list is empty): how many Check takes, the first one run */
        int tried = 0, passed = 0, other = -1;
        uint32_t first_tile = 0, first_stage = 0;
        for (int t = 0; t < (counts[0] ? counts[0] : 1); t++)
            for (int g = 0; g < (counts[1] ? counts[1] : 1); g++) {
                uint32_t tile = counts[0] ? lists[0][t] : 0, stage = counts[1] ? lists[1][g] : 0;
                cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
                cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stage, sizeof stage);
                int s = (int)cublasLtMatmulAlgoCheck(lt, p.desc, p.la, p.lb, p.lc, p.ld, &algo, &res);
                tried++;
                if (s == 0 && passed++ == 0) first_tile = tile, first_stage = stage;
                if (s != 0 && other < 0) other = s;
            }
        ms = CUBLAS_STATUS_NOT_SUPPORTED;
        if (passed) {
            cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &first_tile, sizeof first_tile);
            cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &first_stage, sizeof first_stage);
            ms = problem_run(cb, &p, &algo, got);
        }
        printf("search/%s/%d tried %d passed %d refused %d first %u %u matmul %d same %d\n", cb->name, id, tried, passed,
               other, first_tile, first_stage, (int)ms, passed && ms == 0 && memcmp(got, ref, p.dbytes) == 0);
        /* split-K 4 with the lowest reduction scheme of the mask, on the first tile/stage that passed */
        unsigned long long splitk_ok = 0, mask = 0;
        size_t w;
        get_attr(&algo, 1, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, &splitk_ok, &w);
        get_attr(&algo, 1, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &mask, &w);
        uint32_t splitk = 4, scheme = (uint32_t)(mask & (0u - mask));
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme);
        cs = cublasLtMatmulAlgoCheck(lt, p.desc, p.la, p.lb, p.lc, p.ld, &algo, &res);
        ms = cs == 0 ? problem_run(cb, &p, &algo, got) : cs;
        printf("splitk/%s/%d support %llu scheme %u check %d matmul %d same %d\n", cb->name, id, splitk_ok, scheme,
               (int)cs, (int)ms, ms == 0 && memcmp(got, ref, p.dbytes) == 0);
        /* a tile id past the last one */
        cublasLtMatmulAlgoInit(lt, cb->compute, cb->scale, cb->a, cb->b, cb->c, cb->d, id, &algo);
        uint32_t bad_tile = 1000;
        cublasStatus_t bs = cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &bad_tile,
                                                                 sizeof bad_tile);
        printf("badtile/%s/%d set %d check %d\n", cb->name, id, (int)bs,
               (int)cublasLtMatmulAlgoCheck(lt, p.desc, p.la, p.lb, p.lc, p.ld, &algo, &res));
    }
    free(ref);
    free(got);
}

/* NVIDIA's sample LtDgemmPresetAlgo: f64, algorithm 10, tile 16x16, in-place reduction, split-K 256 */
static void preset_algo(void) {
    enum { m = 4, n = 4, k = 20000 };
    double *ha = (double *)malloc(sizeof(double) * m * k), *hb = (double *)malloc(sizeof(double) * k * n);
    for (int i = 0; i < m * k; i++) ha[i] = (double)((i * 7) % 5) - 2;
    for (int i = 0; i < k * n; i++) hb[i] = (double)((i * 3) % 5) - 2;
    double *a = (double *)dev_copy(ha, sizeof(double) * m * k), *b = (double *)dev_copy(hb, sizeof(double) * k * n);
    double *c;
    cudaMalloc((void **)&c, sizeof(double) * m * n);
    cublasLtMatmulDesc_t desc;
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_64F, CUDA_R_64F);
    int32_t t = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    cublasLtMatrixLayout_t la = layout(CUDA_R_64F, k, m, k, 0), lb = layout(CUDA_R_64F, k, n, k, 0),
                           lc = layout(CUDA_R_64F, m, n, m, 0);
    cublasLtMatmulAlgo_t algo;
    cublasStatus_t st = cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F,
                                               CUDA_R_64F, 10, &algo);
    uint32_t tile = CUBLASLT_MATMUL_TILE_16x16, red = CUBLASLT_REDUCTION_SCHEME_INPLACE, splitk = 256;
    cublasStatus_t s1 = cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
    cublasStatus_t s2 = cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red);
    cublasStatus_t s3 = cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
    cublasLtMatmulHeuristicResult_t res;
    cublasStatus_t cs = cublasLtMatmulAlgoCheck(lt, desc, la, lb, lc, lc, &algo, &res);
    double alpha = 2.0, beta = 0.0;
    cublasStatus_t ms = cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, c, lc, c, lc, &algo, workspace, 4 << 20, 0);
    cudaDeviceSynchronize();
    double hc[m * n], err = 0;
    cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += ha[p + i * k] * hb[p + j * k];
            double e = hc[i + j * m] - 2 * s;
            err = e < 0 ? (err > -e ? err : -e) : (err > e ? err : e);
        }
    printf("preset_algo init %d set %d %d %d check %d matmul %d err %g\n", (int)st, (int)s1, (int)s2, (int)s3, (int)cs,
           (int)ms, err);
    free(ha);
    free(hb);
}

/* ---------------------------------------------------------------- IMMA orders */

enum { ROWS = 37, COLS = 70 };

static int transform(cudaDataType t, const void *src, cublasLtMatrixLayout_t ls, void *dst, cublasLtMatrixLayout_t ld_,
                     int32_t trans) {
    cublasLtMatrixTransformDesc_t td;
    cublasLtMatrixTransformDescCreate(&td, CUDA_R_32F);
    cublasLtMatrixTransformDescSetAttribute(td, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &trans, sizeof trans);
    float one = 1.0f, zero = 0.0f;
    (void)t;
    cublasStatus_t st = cublasLtMatrixTransform(lt, td, &one, src, ls, &zero, NULL, NULL, dst, ld_, 0);
    cudaDeviceSynchronize();
    cublasLtMatrixTransformDescDestroy(td);
    return (int)st;
}

static int64_t min_ld(int order, int rows) {
    if (order == CUBLASLT_ORDER_COL4_4R2_8C) return 32 * ((rows + 7) / 8 * 8);
    if (order == CUBLASLT_ORDER_COL32_2R_4R4) return 32 * ((rows + 31) / 32 * 32);
    return 32 * rows;
}

static void orders(void) {
    const size_t cap = 4 * 2048 * 3;
    int8_t codes[2][ROWS * COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) codes[0][r + c * ROWS] = (int8_t)(r + 1), codes[1][r + c * ROWS] = (int8_t)(c + 1);
    cublasLtMatrixLayout_t lcol = layout(CUDA_R_8I, ROWS, COLS, ROWS, CUBLASLT_ORDER_COL);
    unsigned char *host = (unsigned char *)malloc(cap);
    void *dst;
    cudaMalloc(&dst, cap);
    for (int order = 2; order <= 4; order++) {
        int64_t ld = min_ld(order, ROWS);
        size_t bytes = (size_t)ld * ((COLS + 31) / 32);
        for (int which = 0; which < 2; which++) {
            void *src = dev_copy(codes[which], sizeof codes[which]);
            cudaMemset(dst, 0x7f, cap);
            cublasLtMatrixLayout_t lo = layout(CUDA_R_8I, ROWS, COLS, ld, order);
            int st = transform(CUDA_R_8I, src, lcol, dst, lo, CUBLAS_OP_N);
            cudaMemcpy(host, dst, bytes, cudaMemcpyDeviceToHost);
            printf("order%d/%s ld %lld status %d bytes ", order, which ? "col" : "row", (long long)ld, st);
            for (size_t i = 0; i < bytes; i++) printf("%02x", host[i]);
            printf("\n");
            /* back to COL */
            void *back;
            cudaMalloc(&back, sizeof codes[which]);
            cudaMemset(back, 0, sizeof codes[which]);
            int st2 = transform(CUDA_R_8I, dst, lo, back, lcol, CUBLAS_OP_N);
            unsigned char hb[ROWS * COLS];
            cudaMemcpy(hb, back, sizeof hb, cudaMemcpyDeviceToHost);
            printf("order%d/%s/back status %d same %d\n", order, which ? "col" : "row", st2,
                   memcmp(hb, codes[which], sizeof hb) == 0);
            cudaFree(back);
            cudaFree(src);
            cublasLtMatrixLayoutDestroy(lo);
        }
        /* leading dimensions around the minimum, and a transposed source */
        void *src = dev_copy(codes[0], sizeof codes[0]);
        printf("order%d/lds", order);
        const int64_t lds[] = {32 * ROWS - 1, 32 * ROWS, 32 * 40, 32 * 64 - 1, 32 * 64, 32 * 64 + 32};
        for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++) {
            cublasLtMatrixLayout_t lo = layout(CUDA_R_8I, ROWS, COLS, lds[i], order);
            printf(" %lld:%d", (long long)lds[i], transform(CUDA_R_8I, src, lcol, dst, lo, CUBLAS_OP_N));
            cublasLtMatrixLayoutDestroy(lo);
        }
        printf("\n");
        cublasLtMatrixLayout_t lt_src = layout(CUDA_R_8I, COLS, ROWS, COLS, CUBLASLT_ORDER_COL);
        int8_t tr[ROWS * COLS];
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) tr[c + r * COLS] = (int8_t)((r * 3 + c * 5) % 251 - 125);
        void *tsrc = dev_copy(tr, sizeof tr);
        cudaMemset(dst, 0x7f, cap);
        cublasLtMatrixLayout_t lo = layout(CUDA_R_8I, ROWS, COLS, ld, order);
        int st = transform(CUDA_R_8I, tsrc, lt_src, dst, lo, CUBLAS_OP_T);
        cudaMemcpy(host, dst, bytes, cudaMemcpyDeviceToHost);
        printf("order%d/transposed status %d fnv %016llx\n", order, st, fnv(host, bytes));
        /* other element types in this order */
        printf("order%d/types", order);
        const cudaDataType types[] = {CUDA_R_32F, CUDA_R_32I, CUDA_R_16F};
        for (int i = 0; i < 3; i++) {
            size_t es = type_size(types[i]);
            void *h = malloc(ROWS * COLS * es);
            fill(types[i], h, ROWS * COLS, 9);
            void *s = dev_copy(h, ROWS * COLS * es);
            cublasLtMatrixLayout_t a = layout(types[i], ROWS, COLS, ROWS, CUBLASLT_ORDER_COL);
            cublasLtMatrixLayout_t o = layout(types[i], ROWS, COLS, ld, order);
            void *big;
            cudaMalloc(&big, bytes * es);
            cudaMemset(big, 0x7f, bytes * es);
            int s1 = transform(types[i], s, a, big, o, CUBLAS_OP_N);
            void *back;
            cudaMalloc(&back, ROWS * COLS * es);
            int s2 = s1 == 0 ? transform(types[i], big, o, back, a, CUBLAS_OP_N) : -1;
            void *hb = malloc(ROWS * COLS * es);
            cudaMemcpy(hb, back, ROWS * COLS * es, cudaMemcpyDeviceToHost);
            printf(" %d:%d/%d/%d", (int)types[i], s1, s2, s2 == 0 && memcmp(hb, h, ROWS * COLS * es) == 0);
            free(h);
            free(hb);
            cudaFree(s);
            cudaFree(big);
            cudaFree(back);
        }
        printf("\n");
        cudaFree(src);
        cudaFree(tsrc);
    }
    cudaFree(dst);
    free(host);
}

/* which source -> destination orders cublasLtMatrixTransform takes, per element type */
static void order_matrix(void) {
    const cudaDataType types[] = {CUDA_R_8I, CUDA_R_8U, CUDA_R_32I, CUDA_R_32F, CUDA_R_16F, CUDA_R_64F};
    const size_t cap = 16 * 2048 * 3;
    void *src, *dst;
    cudaMalloc(&src, cap);
    cudaMalloc(&dst, cap);
    cudaMemset(src, 0, cap);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        printf("transform_orders/%d", (int)types[t]);
        for (int so = 0; so <= 4; so++)
            for (int dor = 0; dor <= 4; dor++) {
                int64_t sld = so == 0 ? ROWS : so == 1 ? COLS : min_ld(so, ROWS);
                int64_t dld = dor == 0 ? ROWS : dor == 1 ? COLS : min_ld(dor, ROWS);
                cublasLtMatrixLayout_t ls = layout(types[t], ROWS, COLS, sld, so);
                cublasLtMatrixLayout_t ld_ = layout(types[t], ROWS, COLS, dld, dor);
                printf(" %d%d:%d", so, dor, transform(types[t], src, ls, dst, ld_, CUBLAS_OP_N));
                cublasLtMatrixLayoutDestroy(ls);
                cublasLtMatrixLayoutDestroy(ld_);
            }
        printf("\n");
    }
    cudaFree(src);
    cudaFree(dst);
}

/* int8 matmuls with A, B, C in COL / COL32 / COL4_4R2_8C / COL32_2R_4R4: which the library takes */
static void imma(void) {
    enum { m = 40, n = 48, k = 64 };
    int8_t ha[m * k], hb[k * n];
    for (int i = 0; i < m * k; i++) ha[i] = (int8_t)((i * 7) % 11 - 5);
    for (int i = 0; i < k * n; i++) hb[i] = (int8_t)((i * 5) % 7 - 3);
    for (int dt = 0; dt < 2; dt++) {
        cudaDataType ctype = dt ? CUDA_R_8I : CUDA_R_32I;
        size_t cs = dt ? 1 : 4;
        for (int tb = 0; tb < 2; tb++) {
            /* reference in int32, column-major m x n; i8 D saturates */
            int32_t ref[m * n];
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    int s = 0;
                    for (int p = 0; p < k; p++) s += ha[i + p * m] * (tb ? hb[j + p * n] : hb[p + j * k]);
                    if (dt) s = s > 127 ? 127 : (s < -128 ? -128 : s);
                    ref[i + j * m] = s;
                }
            void *da = dev_copy(ha, sizeof ha), *db = dev_copy(hb, sizeof hb);
            cublasLtMatrixLayout_t la_col = layout(CUDA_R_8I, m, k, m, 0);
            int brows = tb ? n : k, bcols = tb ? k : n;
            cublasLtMatrixLayout_t lb_col = layout(CUDA_R_8I, brows, bcols, brows, 0);
            for (int ao = 0; ao <= 2; ao += 2)
                for (int bo = 0; bo <= 4; bo++) {
                    if (bo == 1) continue;
                    for (int co = 0; co <= 2; co += 2) {
                        int64_t lda = ao ? 32 * m : m, ldb = bo ? min_ld(bo, brows) : brows, ldc = co ? 32 * m : m;
                        cublasLtMatrixLayout_t la = layout(CUDA_R_8I, m, k, lda, ao);
                        cublasLtMatrixLayout_t lb = layout(CUDA_R_8I, brows, bcols, ldb, bo);
                        cublasLtMatrixLayout_t lc = layout(ctype, m, n, ldc, co);
                        void *ta, *tbuf, *dd;
                        size_t abytes = (size_t)lda * ((k + 31) / 32) * (ao ? 1 : 32);
                        size_t bbytes = (size_t)ldb * ((bcols + 31) / 32) * (bo ? 1 : 32);
                        size_t cbytes = (size_t)ldc * ((n + 31) / 32) * (co ? 1 : 32) * cs;
                        cudaMalloc(&ta, abytes);
                        cudaMalloc(&tbuf, bbytes);
                        cudaMalloc(&dd, cbytes);
                        cudaMemset(dd, 0, cbytes);
                        transform(CUDA_R_8I, da, la_col, ta, la, CUBLAS_OP_N);
                        transform(CUDA_R_8I, db, lb_col, tbuf, lb, CUBLAS_OP_N);
                        cublasLtMatmulDesc_t desc;
                        cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, dt ? CUDA_R_32F : CUDA_R_32I);
                        int32_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
                        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
                        cublasLtMatmulPreference_t pref;
                        cublasLtMatmulPreferenceCreate(&pref);
                        uint64_t wsz = WS;
                        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz,
                                                             sizeof wsz);
                        cublasLtMatmulHeuristicResult_t res[4];
                        int count = 0;
                        cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 4, res, &count);
                        int32_t one_i = 1, zero_i = 0;
                        float one_f = 1.0f, zero_f = 0.0f;
                        cublasStatus_t ms = cublasLtMatmul(lt, desc, dt ? (void *)&one_f : (void *)&one_i, ta, la, tbuf,
                                                           lb, dt ? (void *)&zero_f : (void *)&zero_i, dd, lc, dd, lc,
                                                           NULL, workspace, WS, 0);
                        cudaDeviceSynchronize();
                        int same = 0;
                        if (ms == CUBLAS_STATUS_SUCCESS) {
                            cublasLtMatrixLayout_t lcc = layout(ctype, m, n, m, 0);
                            void *back;
                            cudaMalloc(&back, m * n * cs);
                            transform(ctype, dd, lc, back, lcc, CUBLAS_OP_N);
                            unsigned char hb2[m * n * 4];
                            cudaMemcpy(hb2, back, m * n * cs, cudaMemcpyDeviceToHost);
                            same = 1;
                            for (int i = 0; i < m * n; i++)
                                if ((dt ? ((int8_t *)hb2)[i] : ((int32_t *)hb2)[i]) != ref[i]) same = 0;
                            cudaFree(back);
                            cublasLtMatrixLayoutDestroy(lcc);
                        }
                        printf("imma/%s/tb%d/A%d/B%d/C%d heuristic %d %d matmul %d same %d\n", dt ? "i8" : "i32", tb,
                               ao, bo, co, (int)hs, hs == 0 ? count : 0, (int)ms, same);
                        cudaFree(ta);
                        cudaFree(tbuf);
                        cudaFree(dd);
                        cublasLtMatmulDescDestroy(desc);
                        cublasLtMatmulPreferenceDestroy(pref);
                        cublasLtMatrixLayoutDestroy(la);
                        cublasLtMatrixLayoutDestroy(lb);
                        cublasLtMatrixLayoutDestroy(lc);
                    }
                }
            cudaFree(da);
            cudaFree(db);
        }
    }
}

int main(int argc, char **argv) {
    /* no argument: everything; "orders"; "algos" [combo index]; "preset" */
    const char *only = argc > 1 ? argv[1] : "";
    int combo = argc > 2 ? atoi(argv[2]) : -1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (combo >= NCOMBO) {
        printf("no_combo %d\n", combo);
        return 3;
    }
    if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
        printf("FAIL cublasLtCreate\n");
        return 1;
    }
    cudaMalloc(&workspace, WS);
    if (!*only || strcmp(only, "orders") == 0) {
        orders();
        order_matrix();
        imma();
    }
    if (!*only || strcmp(only, "algos") == 0)
        for (int i = 0; i < NCOMBO; i++)
            if (combo < 0 || combo == i) algorithms(&COMBOS[i]);
    if (!*only || strcmp(only, "preset") == 0) preset_algo();
    cublasLtDestroy(lt);
    printf("done %s %d\n", only, combo);
    return 0;
}
