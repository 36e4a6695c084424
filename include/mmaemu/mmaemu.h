/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mmaemu.h
 * @brief libmmaemu C API: matrix products with the bit-exact numerics of a
 *        GPU matrix unit (NVIDIA tensor cores, AMD matrix cores).
 *
 * Plain C (C99). Functions return an int status (MMAEMU_OK = 0, negative on
 * error); mmaemu_last_error() gives the message of the calling thread's last
 * failure. No function throws. A model handle is immutable once created and
 * may be shared between threads.
 */
#ifndef MMAEMU_MMAEMU_H_
#define MMAEMU_MMAEMU_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define MMAEMU_API __declspec(dllexport)
#else
#define MMAEMU_API __attribute__((visibility("default")))
#endif

/* In C++ every enum of this header has the fixed underlying type int
 * (C++ [dcl.enum]), so that any int a C caller stores in an enum argument or
 * field is a value of its type: the library reads it as a plain integer and
 * range-checks it (MMAEMU_ERR_ARGUMENT, naming the argument and the valid
 * values) before converting it. C sees plain enums, of the same size. */
#ifdef __cplusplus
#define MMAEMU_ENUM(name) enum name : int
#else
#define MMAEMU_ENUM(name) enum name
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. */
MMAEMU_ENUM(mmaemu_status) {
  MMAEMU_OK = 0,
  MMAEMU_ERR_ARGUMENT = -1,      /**< a bad argument (null pointer, negative size, ...) */
  MMAEMU_ERR_UNKNOWN_MODEL = -2, /**< no model of that name */
  MMAEMU_ERR_UNSUPPORTED = -3,   /**< the model has no unit for these formats */
  MMAEMU_ERR_NO_MEMORY = -4,
  MMAEMU_ERR_INTERNAL = -5,
  MMAEMU_ERR_NOT_BUILT = -6 /**< the library was built without that part (the BLAS shim) */
};

/** The most threads a call may ask for (mmaemu_gemm_options.threads, the
 *  batched calls' `threads`, MMA_NUM_THREADS); more is refused. */
#define MMAEMU_MAX_THREADS 4096

/** Storage and unit formats. fnuz = AMD MI300 fp8 ("fp8" = E4M3FNUZ, "bf8" = E5M2FNUZ). */
typedef MMAEMU_ENUM(mmaemu_format) {
  MMAEMU_FP64 = 0,
  MMAEMU_FP32 = 1,
  MMAEMU_TF32 = 2, /**< NVIDIA tf32 = AMD xf32; stored as 32-bit float */
  MMAEMU_BF16 = 3, /**< stored as uint16_t bit patterns */
  MMAEMU_FP16 = 4, /**< stored as uint16_t bit patterns */
  MMAEMU_E4M3 = 5, /**< OCP E4M3, stored as uint8_t */
  MMAEMU_E5M2 = 6, /**< OCP E5M2, stored as uint8_t */
  MMAEMU_E4M3FNUZ = 7,
  MMAEMU_E5M2FNUZ = 8,
  /* Block-scaled (OCP MX / NVFP4) element and scale formats, one code per
     uint8_t (low bits); accepted only by the block-scaled calls. */
  MMAEMU_E3M2 = 9,   /**< OCP FP6 E3M2 */
  MMAEMU_E2M3 = 10,  /**< OCP FP6 E2M3 */
  MMAEMU_E2M1 = 11,  /**< OCP FP4 E2M1 (also packed two per byte, element 2i low) */
  MMAEMU_UE8M0 = 12, /**< MX scale: 2^(code-127), 0xFF NaN */
  MMAEMU_UE4M3 = 13, /**< NVFP4 scale: e4m3 with the sign bit ignored */
  /* Integer formats of the integer units (docs/models.md §11), accepted
     only by mmaemu_gemm_int (and the name/parse calls). */
  MMAEMU_S8 = 14,  /**< two's complement 8-bit, int8_t */
  MMAEMU_U8 = 15,  /**< unsigned 8-bit, uint8_t */
  MMAEMU_S4 = 16,  /**< two's complement 4-bit, packed two per byte along k, element 2i low */
  MMAEMU_U4 = 17,  /**< unsigned 4-bit, packed as S4 */
  MMAEMU_S32 = 18  /**< two's complement 32-bit, int32_t: the integer units' C and D */
} mmaemu_format;

/** Rounding used to convert a stored operand to the unit's input format. */
typedef MMAEMU_ENUM(mmaemu_rounding) {
  MMAEMU_RNE = 0, /**< nearest, ties to even (__float2half_rn, numpy astype) */
  MMAEMU_RZ = 1,  /**< toward zero: what the tf32/xf32 units do with fp32 registers */
  MMAEMU_RD = 2,
  MMAEMU_RU = 3,
  MMAEMU_RNA = 4 /**< nearest, ties away (CUDA __float_to_tf32) */
} mmaemu_rounding;

/** CBLAS-compatible layout and transpose values. */
typedef MMAEMU_ENUM(mmaemu_layout) { MMAEMU_ROW_MAJOR = 101, MMAEMU_COL_MAJOR = 102 } mmaemu_layout;
typedef MMAEMU_ENUM(mmaemu_transpose) {
  MMAEMU_NO_TRANS = 111,
  MMAEMU_TRANS = 112,
  MMAEMU_CONJ_TRANS = 113 /**< same as MMAEMU_TRANS for real data */
} mmaemu_transpose;

/** How alpha, beta and C combine with the unit's accumulation. */
typedef MMAEMU_ENUM(mmaemu_accumulate) {
  /** Default. The unit accumulates A*B along k from zero; then
   *  D = fma(alpha, acc, beta*C) in fp32 (beta*C rounded once), as a vendor
   *  BLAS epilogue does. beta = 0 never reads C; alpha = 1, beta = 0 gives the
   *  unit's accumulator exactly. */
  MMAEMU_ACC_GPU_BLAS = 0,
  /** The MATLAB toolbox's GEMM, D = alpha*(beta*C + A*B): beta*C (rounded
   *  to the unit's output format) is the first accumulator of the chain;
   *  D = alpha*acc (fp32). This is the BLAS contract only for alpha = 1
   *  (MMAEMU_ACC_BLAS_INTO_C keeps it for every alpha). */
  MMAEMU_ACC_INTO_C = 1,
  /** Accumulate into C under the BLAS contract D = alpha*A*B + beta*C (the
   *  BLAS shim's MMA_ACCUMULATE=accumulate-into-c). With alpha = 1 (and a
   *  unit that reads its accumulator) it is MMAEMU_ACC_INTO_C: the chain
   *  starts from beta*C rounded once to the unit's output format, and D is
   *  the chain's result (k = 0: that rounded beta*C). For any other alpha a
   *  unit cannot scale its products, so the call is MMAEMU_ACC_GPU_BLAS: the
   *  chain starts from +0, D = fma(alpha, acc, beta*C) in fp32 (beta*C
   *  rounded once). beta = 0 never reads C. Block-scaled products compare
   *  alpha_eff = RNE32(alpha*g_a*g_b) with 1 (docs/block-scaled.md §4.4). */
  MMAEMU_ACC_BLAS_INTO_C = 2
} mmaemu_accumulate;

/**
 * @brief Name of accumulate mode `mode`: "gpu-blas", "into-c", "blas-into-c"
 *        for MMAEMU_ACC_GPU_BLAS, MMAEMU_ACC_INTO_C, MMAEMU_ACC_BLAS_INTO_C;
 *        NULL if `mode` is not one (modes are numbered from 0 without gaps:
 *        iterate until NULL). The names of MMA_ACCUMULATE, mmaemu-run
 *        --accumulate and Python's accumulate=.
 */
MMAEMU_API const char* mmaemu_accumulate_name(int mode);
/**
 * @brief Parses a mode's name, or "accumulate-into-c" (the BLAS shim's first
 *        name of "blas-into-c").
 * @return MMAEMU_OK or MMAEMU_ERR_ARGUMENT (the message lists the names)
 */
MMAEMU_API int mmaemu_accumulate_parse(const char* name, mmaemu_accumulate* out);
/** 1 if `mode` keeps the BLAS contract D = alpha*op(A)*op(B) + beta*C for
 *  every alpha (gpu-blas, blas-into-c): the modes the BLAS shim takes
 *  (MMA_ACCUMULATE); 0 for any other value. */
MMAEMU_API int mmaemu_accumulate_keeps_blas(int mode);

/** Opaque model handle. */
typedef struct mmaemu_model mmaemu_model;

/** Message of the calling thread's last error ("" if none). */
MMAEMU_API const char* mmaemu_last_error(void);
/** Stores `message` (NULL: "") as the calling thread's last error and
 *  returns `status`: for layers over this API that report through
 *  mmaemu_last_error() as it does (the BLAS shim's mmaemu_shim_set). */
MMAEMU_API int mmaemu_set_last_error(int status, const char* message);
/** Library version string, e.g. "0.1.0". */
MMAEMU_API const char* mmaemu_version(void);

/**
 * @brief Looks up a model by name ("H100", "sm_90", "gfx942", "MI250",
 *        "custom:base=B200,round=rne", ...), case-insensitive.
 * @param name  model name
 * @param out   receives the handle; free it with mmaemu_model_free()
 * @return MMAEMU_OK, or MMAEMU_ERR_UNKNOWN_MODEL (the message lists the
 *         valid names) or MMAEMU_ERR_ARGUMENT for a malformed custom model
 */
MMAEMU_API int mmaemu_model_lookup(const char* name, mmaemu_model** out);
/** Looks up the model named by the environment variable MMA_MODEL. */
MMAEMU_API int mmaemu_model_from_env(mmaemu_model** out);
MMAEMU_API void mmaemu_model_free(mmaemu_model* model);
/** Canonical name of a model ("H100"). */
MMAEMU_API const char* mmaemu_model_name(const mmaemu_model* model);
/** Number of registered GPU models, and the i-th canonical name. */
MMAEMU_API size_t mmaemu_model_count(void);
MMAEMU_API const char* mmaemu_model_list(size_t i);

/**
 * @brief One block-FMA unit of a model (model introspection, docs/c-api.md).
 *
 * `instruction` points into the model and stays valid until
 * mmaemu_model_free(). The block-scaled units are not listed here
 * (mmaemu_tile_block_scaled_shape, docs/block-scaled.md).
 */
typedef struct mmaemu_unit_info {
  mmaemu_format input;      /**< format of A and B */
  mmaemu_format output;     /**< format of C and D */
  int m, n, k;              /**< the instruction's shape */
  int gemm_default;         /**< 1: the unit mmaemu_gemm runs for (input, output) */
  const char* instruction;  /**< the instruction's name, e.g. "mma.m16n8k16" */
} mmaemu_unit_info;
/** Number of block-FMA units of a model (0 for a null handle). */
MMAEMU_API size_t mmaemu_model_unit_count(const mmaemu_model* model);
/**
 * @brief The i-th unit of a model, in the order `mmaemu models` lists them.
 * @return MMAEMU_OK, or MMAEMU_ERR_ARGUMENT (null argument, i out of range)
 */
MMAEMU_API int mmaemu_model_unit(const mmaemu_model* model, size_t i, mmaemu_unit_info* info);
/**
 * @brief The i-th unit's parameters: the fields its accumulation path reads,
 *        "key=value" pairs separated by spaces, with the keys and values of
 *        custom models (docs/models.md), e.g. "as_fp16=0 block=16 frac=24 ... accum=aligned ...".
 *
 * Writes at most `size` bytes into `buf` (NUL-terminated when size > 0;
 * buf may be null when size is 0) and stores the whole text's length,
 * without the NUL, in *length.
 * @return MMAEMU_OK, or MMAEMU_ERR_ARGUMENT (null model or length, i out of
 *         range, null buf with size > 0)
 */
MMAEMU_API int mmaemu_model_unit_parameters(const mmaemu_model* model, size_t i, char* buf, size_t size,
                                            size_t* length);

/**
 * @brief Instruction shape of the unit a GEMM uses for (input, output).
 * @return MMAEMU_OK or MMAEMU_ERR_UNSUPPORTED
 */
MMAEMU_API int mmaemu_tile_shape(const mmaemu_model* model, mmaemu_format input,
                                 mmaemu_format output, int* m, int* n, int* k);

/**
 * @brief One instruction: D = A*B + C of the unit for (input, output).
 *
 * A is m x k, B is k x n, C and D are m x n, all row-major and contiguous,
 * holding bit patterns of `input` (A, B) and `output` (C, D) in their
 * storage types (uint8_t, uint16_t, float for fp32/tf32, double for fp64).
 * The shape is that of mmaemu_tile_shape(). C and D may alias.
 */
MMAEMU_API int mmaemu_tile(const mmaemu_model* model, mmaemu_format input, mmaemu_format output,
                           const void* A, const void* B, const void* C, void* D);

/**
 * @brief Batched instructions: `count` independent tiles of the unit for
 *        (input, output), each exactly what mmaemu_tile() gives for it.
 *
 * Tile t reads A + t*m*k, B + t*k*n, C + t*m*n and writes D + t*m*n
 * (elements; shapes from mmaemu_tile_shape(), layouts as mmaemu_tile()).
 * C and D may be the same array. `threads`: 0 = MMA_NUM_THREADS, then
 * OMP_NUM_THREADS, then all cores; the bits never depend on it. The tiles
 * run on the SIMD step kernels (docs/batch.md).
 */
MMAEMU_API int mmaemu_tile_batch(const mmaemu_model* model, mmaemu_format input, mmaemu_format output, size_t count,
                                 const void* A, const void* B, const void* C, void* D, int threads);

/**
 * @brief `count` independent dot products, each one output element of the
 *        unit for (input, output): D[i] = C[i] + sum_l A[i*k + l]*B[i*k + l]
 *        as the unit computes it.
 *
 * A and B are count x k, row-major, holding `input` in its storage type; C
 * and D hold `count` values of `output` (C and D may be the same array). k
 * = the instruction's k is one element of one mmaemu_tile() (row i of its A,
 * column i of its B); a shorter k is that with the rest zero; a longer k
 * chains instructions along k as a GEMM does (docs/batch.md). k >= 1.
 * threads as mmaemu_tile_batch().
 */
MMAEMU_API int mmaemu_dot_batch(const mmaemu_model* model, mmaemu_format input, mmaemu_format output, size_t count,
                                int k, const void* A, const void* B, const void* C, void* D, int threads);

/** Options of the general GEMM. Initialise with mmaemu_gemm_options_init(). */
typedef struct mmaemu_gemm_options {
  mmaemu_format a_storage, b_storage; /**< element types of A and B in memory */
  mmaemu_format c_storage;            /**< element type of C (and D) in memory */
  mmaemu_format input;                /**< format the unit reads (A, B converted) */
  mmaemu_format output;               /**< the unit's accumulator format */
  mmaemu_rounding input_rounding;     /**< storage -> input conversion */
  int saturate;                       /**< fp8 inputs: saturate to max finite (SATFINITE) */
  mmaemu_accumulate accumulate;
  int threads; /**< 0: MMA_NUM_THREADS, then OMP_NUM_THREADS, then all cores */
  /** How the unit's partial sums over k combine (docs/schedules.md):
   *  NULL, "" or "chain" (one accumulator along k), "promote:P",
   *  "splitk:S", "splitk:S:tree", or "splitk:S,promote:P". A bad schedule,
   *  or P not a multiple of the instruction k, is MMAEMU_ERR_ARGUMENT. */
  const char* schedule;
} mmaemu_gemm_options;

/** Defaults: fp32 storage, fp16 input with RNE, fp32 output, gpu-blas, chain. */
MMAEMU_API void mmaemu_gemm_options_init(mmaemu_gemm_options* opt);

/**
 * @brief General GEMM: D = alpha*op(A)*op(B) (+ beta*C) on the model's unit.
 *
 * CBLAS conventions for layout, transposes and leading dimensions. alpha and
 * beta are applied outside the unit (never folded into A before rounding).
 * m = 0 or n = 0 returns at once; beta = 0 never reads C.
 */
MMAEMU_API int mmaemu_gemm(const mmaemu_model* model, const mmaemu_gemm_options* opt,
                           mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb,
                           int m, int n, int k, double alpha, const void* A, int lda,
                           const void* B, int ldb, double beta, void* C, int ldc);

/** Options of mmaemu_gemm_int. Initialise with mmaemu_gemm_int_options_init(). */
typedef struct mmaemu_gemm_int_options {
  /** Formats of A and B: MMAEMU_S8 or MMAEMU_U8 (one code per byte), or
   *  MMAEMU_S4 or MMAEMU_U4 (two codes per byte along k, element 2i in the
   *  low nibble, in every layout; k odd: the last high nibble is ignored).
   *  Chosen independently where the unit takes mixed signedness (NVIDIA
   *  .atype/.btype); read as ints and checked. */
  mmaemu_format a_format, b_format;
  /** 1: the .satfinite variant (the sum clamped to the s32 range), refused
   *  where the unit has none (AMD); 0: the unit's own rule (wrap modulo
   *  2^32, or a custom model's overflow key). */
  int saturate;
  int threads; /**< 0: MMA_NUM_THREADS, then OMP_NUM_THREADS, then all cores */
} mmaemu_gemm_int_options;

/** Defaults: S8 x S8, wrap, threads 0. */
MMAEMU_API void mmaemu_gemm_int_options_init(mmaemu_gemm_int_options* opt);

/**
 * @brief Integer GEMM on the model's integer unit (docs/models.md §11):
 *        D = op(A)*op(B) + C with int32 C and D (beta = 1), or D = op(A)*op(B)
 *        (beta = 0, C not read): alpha = beta = 1 as cublasGemmEx and
 *        oneDNN's s8s8s32 GEMM define it. CBLAS layout, transposes and
 *        leading dimensions; for int4 operands the leading dimension counts
 *        bytes (ceil(k/2) where k is the contiguous dimension). Bit-exact:
 *        the chain of the unit's instructions along k, each wrapping (or
 *        clamping with saturate) as the unit does.
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT (null options, a bad format,
 *         layout, transpose, beta or size; saturate on a unit without
 *         .satfinite), or MMAEMU_ERR_UNSUPPORTED (the model has no integer
 *         unit for a_format x b_format; the message lists those it has)
 */
MMAEMU_API int mmaemu_gemm_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, mmaemu_layout layout,
                               mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, const void* A,
                               int lda, const void* B, int ldb, int beta, int32_t* C, int ldc);

/** Options of mmaemu_dgemm_ex: fp64 GEMM emulated by an Ozaki scheme on a
 *  unit of the model (docs/ozaki.md). Initialise with
 *  mmaemu_dgemm_options_init(). */
typedef struct mmaemu_dgemm_options {
  /** "ozaki1:S" (scheme I, S = 1..40 slices, the S(S+1)/2 slice products),
   *  "ozaki1:S:all" (all S^2 slice products) or "ozaki2:N" (scheme II,
   *  N = 1..20 moduli, the int8 unit); case-insensitive. */
  const char* scheme;
  /** The unit: MMAEMU_S8 (default; the integer unit s8 x s8 -> s32),
   *  MMAEMU_S4 (scheme I with S >= 18), or a floating-point unit input ->
   *  fp32 for scheme I: MMAEMU_FP16, BF16, TF32, E4M3, E5M2, E4M3FNUZ,
   *  E5M2FNUZ. Read as an int and checked. */
  mmaemu_format input;
  /** A floating-point unit's GEMM schedule (as mmaemu_gemm_options.schedule;
   *  NULL, "" or "chain": one accumulator along each k chunk); an integer
   *  unit takes the chain only. */
  const char* schedule;
  int threads; /**< 0: MMA_NUM_THREADS, then OMP_NUM_THREADS, then all cores */
  /** 1: the exactness check: every slice or modular product is also
   *  computed in exact integer arithmetic and compared (mmaemu_ozaki_stats);
   *  the result is the same. 0 (default): no check. */
  int check;
} mmaemu_dgemm_options;

/** What the exactness check found over one call (docs/ozaki.md). */
typedef struct mmaemu_ozaki_stats {
  uint64_t products;                 /**< slice (scheme I) or modular (scheme II) products run */
  uint64_t product_elements;         /**< products x m x n, when checked */
  uint64_t inexact_product_elements; /**< of those, the elements the unit did not compute exactly */
  uint64_t inexact_outputs;          /**< output elements with at least one inexact product */
  int checked;                       /**< 1 when the check ran */
} mmaemu_ozaki_stats;

/** Defaults: scheme NULL (must be set), MMAEMU_S8, the chain, threads 0, no check. */
MMAEMU_API void mmaemu_dgemm_options_init(mmaemu_dgemm_options* opt);

/**
 * @brief dgemm by an Ozaki scheme on the model's unit: C = alpha*op(A)*op(B)
 *        + beta*C, fp64 storage, CBLAS layout, transposes and leading
 *        dimensions. op(A)*op(B) is computed by the scheme (its slice or
 *        modular products on the unit's GEMM, bit-exact, then fp64 sums in
 *        the order docs/ozaki.md gives); then C = alpha*D + beta*C in fp64
 *        (beta = 0 never reads C; alpha = 0 or k = 0: C = beta*C).
 * @param stats  receives the exactness counts (may be NULL)
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT (null options, a bad scheme,
 *         input, schedule, layout, transpose or size; a unit that cannot
 *         carry the scheme: the message says what works), or
 *         MMAEMU_ERR_UNSUPPORTED (the model has no such unit; the message
 *         lists those that can carry scheme I)
 */
MMAEMU_API int mmaemu_dgemm_ex(const mmaemu_model* model, const mmaemu_dgemm_options* opt, mmaemu_layout layout,
                               mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, double alpha,
                               const double* A, int lda, const double* B, int ldb, double beta, double* C, int ldc,
                               mmaemu_ozaki_stats* stats);

/**
 * @brief Instruction shape of the integer unit mmaemu_gemm_int uses for
 *        opt's a_format x b_format (and saturate: refused as there).
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT or MMAEMU_ERR_UNSUPPORTED, as
 *         mmaemu_gemm_int
 */
MMAEMU_API int mmaemu_tile_shape_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, int* m, int* n,
                                     int* k);

/**
 * @brief Batched instructions of the integer unit for opt's formats:
 *        `count` independent tiles D_t = A_t*B_t + C_t (docs/batch.md),
 *        each wrapping, or with opt->saturate clamping, as the unit does.
 *
 * Shapes from mmaemu_tile_shape_int(). A_t is m x k codes of a_format,
 * B_t k x n codes of b_format, row-major, one per byte (int8_t, uint8_t),
 * or for S4/U4 two per byte along k, element 2i in the low nibble: A_t's
 * rows k/2 bytes, B_t k/2 x n bytes (byte (i, j): rows 2i and 2i + 1 of
 * column j). Tile t at t times each operand's size. C and D: count x m x n
 * int32, C and D may alias. opt->threads as mmaemu_tile_batch(); the bits
 * never depend on it.
 * @return as mmaemu_gemm_int; MMAEMU_ERR_ARGUMENT for a null pointer
 */
MMAEMU_API int mmaemu_tile_batch_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, size_t count,
                                     const void* A, const void* B, const int32_t* C, int32_t* D);

/**
 * @brief `count` independent dot products of the integer unit for opt's
 *        formats: D[i] = C[i] + sum_l A[i,l]*B[i,l] as the unit computes
 *        it (k = the instruction's k: one element of one tile; a shorter k
 *        zero-padded; a longer one a chain of instructions, as a GEMM).
 *
 * A and B are count x k codes, row-major, one per byte, or S4/U4 packed
 * two per byte along k (rows of ceil(k/2) bytes, element 2i in the low
 * nibble; k odd: the last high nibble unread). C and D: count int32, may
 * alias. k >= 1.
 * @return as mmaemu_tile_batch_int
 */
MMAEMU_API int mmaemu_dot_batch_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, size_t count,
                                    int k, const void* A, const void* B, const int32_t* C, int32_t* D);

/**
 * @brief sgemm on the unit. fp32 storage; `policy` names the unit input
 *        format and its conversion: "fp16", "bf16", "tf32" (hardware
 *        truncation), "tf32:rna" (CUDA __float_to_tf32), "xf32", "e4m3",
 *        "e5m2" (RNE, saturating), "fp32" (the model's fp32 path, e.g. the
 *        CDNA SFMA chain), each optionally ":rne", ":rz" or ":rna"; NULL or ""
 *        means mmaemu_default_policy(model). mmaemu_sgemm_ex with policy set.
 */
MMAEMU_API int mmaemu_sgemm(const mmaemu_model* model, const char* policy, mmaemu_layout layout,
                            mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k,
                            float alpha, const float* A, int lda, const float* B, int ldb,
                            float beta, float* C, int ldc);

/** mmaemu_sgemm under a schedule (mmaemu_gemm_options.schedule; NULL = chain):
 *  mmaemu_sgemm_ex with policy and schedule set. */
MMAEMU_API int mmaemu_sgemm_scheduled(const mmaemu_model* model, const char* policy, const char* schedule,
                                      mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m,
                                      int n, int k, float alpha, const float* A, int lda, const float* B,
                                      int ldb, float beta, float* C, int ldc);

/** Options of mmaemu_sgemm_ex, the one sgemm entry with every choice the
 *  suffixed sgemm entries make (docs/c-api.md, "One sgemm entry").
 *  Initialise with mmaemu_sgemm_options_init(). */
typedef struct mmaemu_sgemm_options {
  /** The input policy: an element-wise one (mmaemu_parse_policy: "fp16",
   *  "tf32:rna", ...) or a block-scaled one (mmaemu_parse_block_scaled_policy:
   *  "mxfp8", ..., "nvfp4", quantised as mmaemu_sgemm_block_scaled does);
   *  NULL or "": mmaemu_default_policy(model). */
  const char* policy;
  /** As mmaemu_gemm_options.schedule (NULL, "" or "chain": one accumulator
   *  along k). A block-scaled policy runs the chain only: any other schedule
   *  is MMAEMU_ERR_ARGUMENT. */
  const char* schedule;
  /** gpu-blas (default), into-c or blas-into-c (mmaemu_accumulate); read as
   *  an int and checked: another value is MMAEMU_ERR_ARGUMENT. */
  mmaemu_accumulate accumulate;
} mmaemu_sgemm_options;

/** Defaults: the model's default policy, the chain, MMAEMU_ACC_GPU_BLAS. */
MMAEMU_API void mmaemu_sgemm_options_init(mmaemu_sgemm_options* opt);

/**
 * @brief sgemm on the unit with its options: fp32 storage of A, B and C,
 *        CBLAS conventions (layout, transposes, leading dimensions), alpha
 *        and beta outside the unit, beta = 0 never reads C. An element-wise
 *        policy runs mmaemu_gemm (fp32 storage, the policy's input format
 *        and conversion, fp32 output) under the schedule and accumulation; a
 *        block-scaled policy runs mmaemu_sgemm_block_scaled_acc. Threads: as
 *        mmaemu_gemm_options.threads = 0 (MMA_NUM_THREADS, ...).
 *        mmaemu_sgemm, mmaemu_sgemm_scheduled, mmaemu_sgemm_block_scaled and
 *        mmaemu_sgemm_block_scaled_acc are this entry with some options set.
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT (null options, a bad policy,
 *         schedule, accumulate, layout or transpose, sizes), or
 *         MMAEMU_ERR_UNSUPPORTED (the model has no unit for the policy)
 */
MMAEMU_API int mmaemu_sgemm_ex(const mmaemu_model* model, const mmaemu_sgemm_options* opt, mmaemu_layout layout,
                               mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha,
                               const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc);

/**
 * @brief The sgemm input policy a vendor BLAS would use on this model: its
 *        fp32 unit where it has one (AMD: "fp32", the SFMA chain), else
 *        "tf32" (the tensor-core sgemm mode of NVIDIA's libraries), else
 *        "fp16" (V100, where cuBLAS's tensor-op sgemm converts to fp16).
 */
MMAEMU_API const char* mmaemu_default_policy(const mmaemu_model* model);

/**
 * @brief hgemm on the unit: fp16 storage of A, B, C (uint16_t bit patterns);
 *        `output` is MMAEMU_FP16 or MMAEMU_FP32 (the unit's accumulator).
 */
MMAEMU_API int mmaemu_hgemm(const mmaemu_model* model, mmaemu_format output,
                            mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb,
                            int m, int n, int k, float alpha, const uint16_t* A, int lda,
                            const uint16_t* B, int ldb, float beta, uint16_t* C, int ldc);

/**
 * @brief Parses an sgemm input policy ("tf32:rna", ...) into options.
 * @return MMAEMU_OK or MMAEMU_ERR_ARGUMENT (the message lists valid policies)
 */
MMAEMU_API int mmaemu_parse_policy(const char* policy, mmaemu_gemm_options* opt);

/** Fine-grained scaled fp8 GEMM (DeepSeek-V3 / DeepGEMM). */
typedef struct mmaemu_fp8_scaled_options {
  mmaemu_format format; /**< codes of A and B: MMAEMU_E4M3 (default) or MMAEMU_E5M2 */
  int block_k;          /**< k elements per scale (128); a multiple of the instruction k */
  int block_n;          /**< columns of B per scale (128) */
  int b_trans;          /**< 0: B is k x n (ldb >= n); 1: B is stored n x k (ldb >= k), DeepGEMM's layout */
  int threads;          /**< as in mmaemu_gemm_options */
} mmaemu_fp8_scaled_options;

MMAEMU_API void mmaemu_fp8_scaled_options_init(mmaemu_fp8_scaled_options* opt);

/**
 * @brief D = sum over k blocks of (A block * B block) * sa * sb, row-major.
 *
 * A is m x k fp8 codes (uint8_t, lda >= k) with a_scales m x ceil(k/block_k)
 * (row-major); B has b_scales ceil(k/block_k) x ceil(n/block_n) (row-major);
 * D is m x n fp32 (ldd >= n). For each k block q in order, the unit sums the
 * block from +0 (partial, fp32), then
 *   main = fma(partial, fl32(sa[i][q] * sb[q][j / block_n]), main)
 * in binary32 with RNE, from main = +0; D = main. This is the common kernel
 * form (DeepGEMM promotes every 128 elements this way); a kernel may
 * multiply and add separately and give other bits.
 */
MMAEMU_API int mmaemu_gemm_fp8_scaled(const mmaemu_model* model, const mmaemu_fp8_scaled_options* opt, int m,
                                      int n, int k, const uint8_t* A, int lda, const float* a_scales,
                                      const uint8_t* B, int ldb, const float* b_scales, float* D, int ldd);

/**
 * @brief Quantises fp32 X (rows x cols, row-major, ldx) to fp8 codes in
 *        blocks of block_rows x block_cols (A: 1 x 128; B: 128 x 128).
 *
 * Per block scale = fl32(amax / max finite) (448 for e4m3, 57344 for e5m2;
 * 1 for an all-zero block), code = fp8(fl32(x / scale)) with RNE,
 * saturating. scales is ceil(rows/block_rows) x ceil(cols/block_cols),
 * row-major. NaN or Inf in X is MMAEMU_ERR_ARGUMENT.
 */
MMAEMU_API int mmaemu_quantize_fp8_blocks(mmaemu_format format, int rows, int cols, const float* X, int ldx,
                                          int block_rows, int block_cols, uint8_t* Q, int ldq, float* scales);

/* ------------------------------------------------------------------------
 * Block-scaled and narrow-format units (NVIDIA Blackwell: MXFP8/6/4, NVFP4,
 * fp8/fp6/fp4 without scales); docs/block-scaled.md. These units follow the
 * specification there and are not yet checked against hardware.
 * ------------------------------------------------------------------------ */

/** Which unit runs a block-scaled product. */
typedef MMAEMU_ENUM(mmaemu_scaled_unit) {
  /** The only unit the operands fit; for e2m1 x e2m1 with UE8M0 per 32 (MXFP4),
   *  which two units take, the native fp4 unit (GST, kind::mxf4). */
  MMAEMU_UNIT_AUTO = 0,
  MMAEMU_UNIT_T = 1,   /**< kind::f8f6f4: no scales (block_size 0) */
  MMAEMU_UNIT_ST = 2,  /**< kind::mxf8f6f4: UE8M0 per 32, 32 elements per instruction */
  MMAEMU_UNIT_GST = 3  /**< kind::mxf4 / mxf4nvf4: e2m1 only, exact groups of 16 */
} mmaemu_scaled_unit;

/** Operand description of a block-scaled product. Initialise with
 *  mmaemu_block_scale_desc_init(). */
typedef struct mmaemu_block_scale_desc {
  mmaemu_format a_format, b_format; /**< E4M3, E5M2, E3M2, E2M3 or E2M1 */
  mmaemu_format scale_format;       /**< UE8M0 or UE4M3 (ignored when block_size = 0) */
  int block_size;                   /**< elements per scale along k: 32, 16, or 0 (no scales) */
  mmaemu_scaled_unit unit;
  /** Nonzero: e2m1 operands hold two codes per byte along k (element 2i in
   *  the low nibble); lda/ldb then count bytes, and k/2 bytes span k. */
  int fp4_packed;
  float a_global_scale, b_global_scale; /**< per-tensor decode scales (NVFP4), 1 if none */
  mmaemu_accumulate accumulate;
  /** Nonzero: fp6/fp4 subnormals renormalised for alignment; 0 (the default)
   *  keeps the unit's choice: clamped at emin as the specification does,
   *  unless a custom model sets bs_subnormals=normalize. */
  int narrow_subnormals_normalize;
} mmaemu_block_scale_desc;

/** Defaults: E4M3 x E4M3, UE8M0 per 32 (MXFP8), unit auto, unpacked, global
 *  scales 1, MMAEMU_ACC_GPU_BLAS, clamped subnormals. */
MMAEMU_API void mmaemu_block_scale_desc_init(mmaemu_block_scale_desc* desc);

/**
 * @brief Block-scaled GEMM: C = alpha*g_a*g_b*(op(A) (x) op(B)) + beta*C on
 *        the model's unit, chained along k one instruction at a time.
 *
 * op(A) is m x k element codes (uint8_t, one per byte unless fp4_packed) and
 * op(SA) m x k/block_size scale codes, stored with the same layout and
 * transpose as A (leading dimension ldsa); op(B) is k x n codes and op(SB)
 * k/block_size x n scales stored like B. C is m x n fp32. CBLAS conventions
 * for layout, transposes and leading dimensions. k must be a multiple of
 * block_size; the last instruction is padded with zeros and neutral scales.
 * alpha*g_a*g_b is rounded once to fp32. beta = 0 never reads C. SA, SB may
 * be NULL when block_size = 0.
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT, or MMAEMU_ERR_UNSUPPORTED (the
 *         message lists the model's units)
 */
MMAEMU_API int mmaemu_gemm_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                        mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb,
                                        int m, int n, int k, float alpha, const uint8_t* A, int lda,
                                        const uint8_t* SA, int ldsa, const uint8_t* B, int ldb,
                                        const uint8_t* SB, int ldsb, float beta, float* C, int ldc);

/** Instruction shape (m x n x k) and name of the unit `desc` selects. */
MMAEMU_API int mmaemu_tile_block_scaled_shape(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                              int* m, int* n, int* k, const char** instruction);

/**
 * @brief One instruction of the unit `desc` selects: D = A*B + C, shape from
 *        mmaemu_tile_block_scaled_shape(). A (m x k codes), SA (m x k/block),
 *        B (k x n codes), SB (k/block x n), C and D (m x n) row-major and
 *        contiguous; fp4_packed applies along k. `output` is MMAEMU_FP32
 *        (float) or, on the unscaled unit, MMAEMU_FP16 (uint16_t). Global
 *        scales and accumulate are not used. C and D may alias.
 */
MMAEMU_API int mmaemu_tile_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                        mmaemu_format output, const uint8_t* A, const uint8_t* SA,
                                        const uint8_t* B, const uint8_t* SB, const void* C, void* D);

/**
 * @brief `count` independent instructions of the unit `desc` selects, each
 *        exactly what mmaemu_tile_block_scaled() gives for it: tile t reads
 *        A + t*m*KA (KA = k, or k/2 bytes when fp4_packed), SA + t*m*k/block,
 *        B + t*KB*n (KB likewise), SB + t*(k/block)*n, C + t*m*n and writes
 *        D + t*m*n (layouts and `output` as mmaemu_tile_block_scaled()).
 *        threads as mmaemu_tile_batch().
 */
MMAEMU_API int mmaemu_tile_batch_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                              mmaemu_format output, size_t count, const uint8_t* A,
                                              const uint8_t* SA, const uint8_t* B, const uint8_t* SB, const void* C,
                                              void* D, int threads);

/**
 * @brief `count` independent dot products of k elements on the unit `desc`
 *        selects: D[i] = C[i] + the scaled dot product of A's row i and B's
 *        row i (count x k element codes each, k/2 bytes per row when
 *        fp4_packed), scales SA, SB count x k/block (block = block_size;
 *        none when 0). k a multiple of the block; instructions chain along
 *        k, the last padded with zero elements and neutral scales, as
 *        mmaemu_gemm_block_scaled() does. C and D: count values of `output`
 *        (MMAEMU_FP32, or MMAEMU_FP16 on the unscaled unit). threads as
 *        mmaemu_tile_batch().
 */
MMAEMU_API int mmaemu_dot_batch_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                             mmaemu_format output, size_t count, int k, const uint8_t* A,
                                             const uint8_t* SA, const uint8_t* B, const uint8_t* SB, const void* C,
                                             void* D, int threads);

/**
 * @brief OCP MX quantisation of n values in blocks of block_size consecutive
 *        values: scales[i/block_size] (UE8M0) and codes[i] of `element`
 *        (one per byte). A block with NaN or Inf gets scale 0xFF, codes 0.
 */
MMAEMU_API int mmaemu_quantize_mx(mmaemu_format element, int block_size, size_t n, const float* x,
                                  uint8_t* codes, uint8_t* scales);

/** NVFP4 per-tensor scales of n values: encode = 2688/amax, decode = 1/encode
 *  (each rounded to fp32; 1 and 1 when every value is zero). */
MMAEMU_API int mmaemu_nvfp4_global_scale(size_t n, const float* x, float* encode, float* decode);

/**
 * @brief NVFP4 quantisation of n values with the encode scale: one UE4M3
 *        scale per 16 consecutive values, e2m1 codes one per byte.
 */
MMAEMU_API int mmaemu_quantize_nvfp4(size_t n, const float* x, float encode, uint8_t* codes,
                                     uint8_t* scales);

/** x[i] = codes[i] * scales[i/block_size] * global_scale, rounded once to fp32;
 *  global_scale (a decode scale) must be positive and finite. */
MMAEMU_API int mmaemu_dequantize(mmaemu_format element, mmaemu_format scale, int block_size, size_t n,
                                 const uint8_t* codes, const uint8_t* scales, float global_scale,
                                 float* x);

/** Parses a block-scaled sgemm input policy: "mxfp8" (e4m3), "mxfp8:e5m2",
 *  "mxfp6" (e2m3), "mxfp6:e3m2", "mxfp4" (UE8M0 per 32) or "nvfp4" (e2m1,
 *  UE4M3 per 16, per-tensor scales) into desc (other fields at their
 *  defaults). MMAEMU_ERR_ARGUMENT (listing them) for any other name. */
MMAEMU_API int mmaemu_parse_block_scaled_policy(const char* policy, mmaemu_block_scale_desc* desc);
/** The number of block-scaled sgemm input policies (those
 *  mmaemu_parse_block_scaled_policy accepts). */
MMAEMU_API int mmaemu_block_scaled_policy_count(void);
/** Name of block-scaled policy i, 0 <= i < mmaemu_block_scaled_policy_count()
 *  ("mxfp8", ..., "nvfp4", in the order the messages list them); NULL for any
 *  other i. */
MMAEMU_API const char* mmaemu_block_scaled_policy_name(int i);

/**
 * @brief sgemm from fp32 under a block-scaled policy: quantises op(A)'s rows
 *        and op(B)'s columns per block along k (mmaemu_quantize_mx, or for
 *        nvfp4 mmaemu_nvfp4_global_scale per operand then
 *        mmaemu_quantize_nvfp4), then runs mmaemu_gemm_block_scaled (unit
 *        auto, gpu-blas accumulation). k not a multiple of the block: the
 *        last block is quantised short and padded with zero codes. CBLAS
 *        conventions otherwise.
 * @return MMAEMU_OK, MMAEMU_ERR_ARGUMENT, or MMAEMU_ERR_UNSUPPORTED (the
 *         model has no unit for the policy)
 */
MMAEMU_API int mmaemu_sgemm_block_scaled(const mmaemu_model* model, const char* policy, mmaemu_layout layout,
                                         mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k,
                                         float alpha, const float* A, int lda, const float* B, int ldb,
                                         float beta, float* C, int ldc);

/** mmaemu_sgemm_block_scaled with the accumulation semantics chosen
 *  (docs/block-scaled.md §4.4): MMAEMU_ACC_GPU_BLAS is
 *  mmaemu_sgemm_block_scaled; MMAEMU_ACC_INTO_C starts each element's chain
 *  from RNE32(beta*C), D = alpha_eff*acc; MMAEMU_ACC_BLAS_INTO_C does so
 *  only where alpha_eff = 1, else it is MMAEMU_ACC_GPU_BLAS (the BLAS shim's
 *  MMA_ACCUMULATE=accumulate-into-c). */
MMAEMU_API int mmaemu_sgemm_block_scaled_acc(const mmaemu_model* model, const char* policy,
                                             mmaemu_accumulate accumulate, mmaemu_layout layout, mmaemu_transpose ta,
                                             mmaemu_transpose tb, int m, int n, int k, float alpha, const float* A,
                                             int lda, const float* B, int ldb, float beta, float* C, int ldc);

/* ---- Formats and conversions (src/api/convert.cpp) --------------------- */

/** Canonical name of a format ("fp16", "e4m3fnuz", ...); NULL if `f` is not
 *  a format (formats are numbered from 0 without gaps: iterate until NULL). */
MMAEMU_API const char* mmaemu_format_name(int f);
/** Parses a format name, case-insensitive, with the aliases of the CLI
 *  ("half", "bfloat16", "xf32", "fp8" = e4m3fnuz, "bf8" = e5m2fnuz).
 *  @return MMAEMU_OK or MMAEMU_ERR_ARGUMENT (the message lists the names) */
MMAEMU_API int mmaemu_format_parse(const char* name, mmaemu_format* out);
/** Bytes of one stored element: 8 (fp64), 4 (fp32, tf32), 2 or 1; 0 if `f`
 *  is not a format. */
MMAEMU_API int mmaemu_format_storage_bytes(int f);

/**
 * @brief Converts n stored values of format `from` to format `to`.
 *
 * x and y hold n elements in the storage types of their formats (see
 * mmaemu_format); they must not overlap unless they are the same array of
 * the same storage size. Rounding `r` applies when `to` cannot hold a value
 * exactly; `saturate` sends values beyond the largest finite number to it
 * (CUDA __NV_SATFINITE) instead of to Inf (NaN where `to` has no Inf). NaN
 * becomes the target's default NaN. Any format converts to fp64 exactly, so
 * decoding codes is a conversion to MMAEMU_FP64.
 */
MMAEMU_API int mmaemu_convert(mmaemu_format from, mmaemu_format to, const void* x, void* y, size_t n,
                              mmaemu_rounding r, int saturate);

/* ---- Runtime control of the BLAS shim (blas_shim/runtime_switch.cpp) ------
 * Only in libmmaemu.so. They act on the shim of the library they are called
 * in, which intercepts BLAS calls only when it was loaded before the BLAS
 * (LD_PRELOAD). The setting is process-wide and switched atomically: a BLAS
 * call runs entirely under the setting it started with. A library built
 * without the shim (MMAEMU_BUILD_BLAS_SHIM=OFF) has both; they return
 * MMAEMU_ERR_NOT_BUILT (mmaemu_shim_get: with "" and "") and change nothing. */

/**
 * @brief Makes the shim emulate `model` with sgemm input policy `policy`
 *        (see mmaemu_sgemm; NULL or "" = mmaemu_default_policy), as
 *        MMA_MODEL and MMA_INPUT_FORMAT would; `model` NULL or "" sends every
 *        call to the system BLAS. MMA_ACCUMULATE and MMA_DGEMM still apply.
 * @return MMAEMU_OK; on error the setting is unchanged.
 */
MMAEMU_API int mmaemu_shim_set(const char* model, const char* policy);
/** The shim's current model (as it was named; "" when calls go to the system
 *  BLAS) and policy. The strings stay valid for the life of the process. */
MMAEMU_API int mmaemu_shim_get(const char** model, const char** policy);

#ifdef __cplusplus
}
#endif

#endif /* MMAEMU_MMAEMU_H_ */
