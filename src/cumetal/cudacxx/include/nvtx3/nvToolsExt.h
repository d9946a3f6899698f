/* CuMetal clean-room CUDA headers: nvtx3/nvToolsExt.h — the NVIDIA Tools Extension API (NVTX v3),
 * written from its documentation. NVTX annotates a program for profilers; with no profiler attached
 * every call does nothing, which is what CuMetal provides: the calls compile, link (they are inline)
 * and return what NVTX returns when no tool is loaded (range push/pop report the nesting depth). */
#ifndef CUMETAL_NVTOOLSEXT_H
#define CUMETAL_NVTOOLSEXT_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define NVTX_VERSION 3
#define NVTX_SUCCESS 0
#define NVTX_FAIL 1
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st *nvtxStringHandle_t;

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

/* The nesting depth of push/pop ranges of this thread (what NVTX reports without a tool). */
#if defined(__cplusplus)
#define CUMETAL_NVTX_THREAD_LOCAL thread_local
#else
#define CUMETAL_NVTX_THREAD_LOCAL _Thread_local
#endif
static inline int *cumetal_nvtx_depth(void) {
    static CUMETAL_NVTX_THREAD_LOCAL int depth;
    return &depth;
}
static inline int cumetal_nvtx_push(void) { return (*cumetal_nvtx_depth())++; }
static inline int cumetal_nvtx_pop(void) {
    int *d = cumetal_nvtx_depth();
    if (*d <= 0) return -1; /* a pop without a push */
    return --*d;
}

static inline void nvtxInitialize(const void *reserved) { (void)reserved; }
static inline void nvtxMarkA(const char *message) { (void)message; }
static inline void nvtxMarkW(const wchar_t *message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t *attr) { (void)attr; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *message) { (void)message; return 0; }
static inline nvtxRangeId_t nvtxRangeStartW(const wchar_t *message) { (void)message; return 0; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *attr) { (void)attr; return 0; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline int nvtxRangePushA(const char *message) { (void)message; return cumetal_nvtx_push(); }
static inline int nvtxRangePushW(const wchar_t *message) { (void)message; return cumetal_nvtx_push(); }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *attr) { (void)attr; return cumetal_nvtx_push(); }
static inline int nvtxRangePop(void) { return cumetal_nvtx_pop(); }
static inline void nvtxNameCategoryA(uint32_t category, const char *name) { (void)category; (void)name; }
static inline void nvtxNameCategoryW(uint32_t category, const wchar_t *name) { (void)category; (void)name; }
static inline void nvtxNameOsThreadA(uint32_t threadId, const char *name) { (void)threadId; (void)name; }
static inline void nvtxNameOsThreadW(uint32_t threadId, const wchar_t *name) { (void)threadId; (void)name; }

static inline nvtxDomainHandle_t nvtxDomainCreateA(const char *name) { (void)name; return (nvtxDomainHandle_t)0; }
static inline nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t *name) { (void)name; return (nvtxDomainHandle_t)0; }
static inline void nvtxDomainDestroy(nvtxDomainHandle_t domain) { (void)domain; }
static inline void nvtxDomainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr) {
    (void)domain; (void)attr;
}
static inline nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr) {
    (void)domain; (void)attr; return 0;
}
static inline void nvtxDomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) { (void)domain; (void)id; }
static inline int nvtxDomainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr) {
    (void)domain; (void)attr; return cumetal_nvtx_push();
}
static inline int nvtxDomainRangePop(nvtxDomainHandle_t domain) { (void)domain; return cumetal_nvtx_pop(); }
static inline nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t domain, const char *string) {
    (void)domain; (void)string; return (nvtxStringHandle_t)0;
}
static inline nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t domain, const wchar_t *string) {
    (void)domain; (void)string; return (nvtxStringHandle_t)0;
}
static inline void nvtxDomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category, const char *name) {
    (void)domain; (void)category; (void)name;
}
static inline void nvtxDomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category, const wchar_t *name) {
    (void)domain; (void)category; (void)name;
}

/* the names without A/W: the character type the program's UNICODE setting picks, as in NVTX */
#if defined(UNICODE)
#define nvtxMark nvtxMarkW
#define nvtxRangeStart nvtxRangeStartW
#define nvtxRangePush nvtxRangePushW
#define nvtxNameCategory nvtxNameCategoryW
#define nvtxNameOsThread nvtxNameOsThreadW
#define nvtxDomainCreate nvtxDomainCreateW
#define nvtxDomainRegisterString nvtxDomainRegisterStringW
#define nvtxDomainNameCategory nvtxDomainNameCategoryW
#else
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxRangePush nvtxRangePushA
#define nvtxNameCategory nvtxNameCategoryA
#define nvtxNameOsThread nvtxNameOsThreadA
#define nvtxDomainCreate nvtxDomainCreateA
#define nvtxDomainRegisterString nvtxDomainRegisterStringA
#define nvtxDomainNameCategory nvtxDomainNameCategoryA
#endif

#endif
