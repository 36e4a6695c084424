/* SPDX-License-Identifier: BSD-3-Clause */
/* PSGEMM (and PDGEMM under MMA_DGEMM=model or an Ozaki scheme) on the BLACS process grids the
 * ranks allow, run under LD_PRELOAD=libmmaemu.so: the distributed product
 * must equal, bit for bit, a composition of per-panel GEMMs computed in one
 * process through the C API.
 *
 * What the reference PBLAS does (PBLAS/SRC/PTOOLS/PB_CpgemmAB.c, the
 * algorithm PSGEMM picks when k is the smallest dimension; read there and
 * confirmed by this test): it walks k in panels of kb = PILAENV() = 32
 * columns, gathering each panel owner by owner -- first every k index held
 * by the first process along k, in ascending order, then those of the next
 * process -- and calls the local sgemm_ once per panel, beta for the first
 * panel and 1 after:
 *
 *   C_0 = C,  C_p = fma(alpha, acc(A[:, panel p] B[panel p, :]), beta_p C_{p-1})
 *
 * (the shim's epilogue, in the storage precision). k index j is held by
 * process (j / NB) mod P, P = lcm(nprow, npcol) processes along k. So the
 * bits depend on NB and P, never on the total rank count or on which grid
 * gives that P; one process (1 x 1) makes one local GEMM over all of k.
 *
 * usage: mpirun -np R scalapack_test     (R = 2 or 4: every grid listed of <= R) */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

/* BLACS (C interface) and ScaLAPACK/PBLAS (Fortran interface). */
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void psgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
             const int*, const int*, const float*, const int*, const int*, const int*, const float*, float*,
             const int*, const int*, const int*);
void pdgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
             const int*, const int*, const int*, const double*, const int*, const int*, const int*, const double*,
             double*, const int*, const int*, const int*);

enum { M = 96, N = 80, K = 72, KB = 32 }; /* k < m, n: PBLAS's AB algorithm */
static const double ALPHA = 1.0, BETA = 1.0;

typedef int (*gemm_api)(const mmaemu_model*, const mmaemu_gemm_options*, mmaemu_layout, mmaemu_transpose,
                        mmaemu_transpose, int, int, int, double, const void*, int, const void*, int, double, void*,
                        int);
static gemm_api api_gemm;
/* MMA_DGEMM=ozaki...: the per-panel dgemm is mmaemu_dgemm_ex with the scheme
   on the unit of MMA_INPUT_FORMAT (int8 when unset), as the shim runs it. */
typedef int (*dgemm_ex_api)(const mmaemu_model*, const mmaemu_dgemm_options*, mmaemu_layout, mmaemu_transpose,
                            mmaemu_transpose, int, int, int, double, const double*, int, const double*, int, double,
                            double*, int, mmaemu_ozaki_stats*);
static dgemm_ex_api api_dgemm_ex;
static mmaemu_dgemm_options opt_ozaki;
static mmaemu_model* model;
static mmaemu_gemm_options opt_s, opt_d;
static int rank, size, failures, checks;

/* Global column-major operands, the same on every rank. */
static double gA[M * K], gB[K * N], gC[M * N];

static void* api(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) {
    fprintf(stderr, "%s not found: run under LD_PRELOAD=libmmaemu.so\n", name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return f;
}

static void setup_api(void) {
  int (*from_env)(mmaemu_model**) = (int (*)(mmaemu_model**))api("mmaemu_model_from_env");
  void (*init)(mmaemu_gemm_options*) = (void (*)(mmaemu_gemm_options*))api("mmaemu_gemm_options_init");
  int (*parse)(const char*, mmaemu_gemm_options*) = (int (*)(const char*, mmaemu_gemm_options*))api("mmaemu_parse_policy");
  const char* (*policy)(const mmaemu_model*) = (const char* (*)(const mmaemu_model*))api("mmaemu_default_policy");
  api_gemm = (gemm_api)api("mmaemu_gemm");
  if (from_env(&model) != MMAEMU_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  init(&opt_s);
  const char* p = getenv("MMA_INPUT_FORMAT");
  parse(p && *p ? p : policy(model), &opt_s);
  opt_d = opt_s;
  opt_d.a_storage = opt_d.b_storage = opt_d.c_storage = opt_d.input = opt_d.output = MMAEMU_FP64;
  opt_s.threads = opt_d.threads = 1;
  const char* dgemm = getenv("MMA_DGEMM");
  if (dgemm && !strncmp(dgemm, "ozaki", 5)) {
    ((void (*)(mmaemu_dgemm_options*))api("mmaemu_dgemm_options_init"))(&opt_ozaki);
    opt_ozaki.scheme = dgemm;
    opt_ozaki.threads = 1;
    if (p && *p) ((int (*)(const char*, mmaemu_format*))api("mmaemu_format_parse"))(p, &opt_ozaki.input);
    api_dgemm_ex = (dgemm_ex_api)api("mmaemu_dgemm_ex");
  }
}

static int panel_gemm(int dbl, const mmaemu_gemm_options* opt, int w, const void* a, const void* b, double beta,
                      void* C) {
  if (dbl && api_dgemm_ex)
    return api_dgemm_ex(model, &opt_ozaki, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, w, ALPHA, a, M,
                        b, K, beta, C, M, NULL);
  return api_gemm(model, opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, w, ALPHA, a, M, b, K, beta,
                  C, M);
}

static void put(int dbl, void* dst, size_t i, double v) {
  if (dbl) ((double*)dst)[i] = v;
  else ((float*)dst)[i] = (float)v;
}

/* Expected bits: k taken owner by owner (index j held by process
 * (j / nb) mod p along k), cut into panels of kb (kb >= K: one GEMM), one
 * GEMM per panel in order, adding into C with beta = 1 after the first. */
static void expected(int dbl, int kb, int nb, int p, void* C) {
  const mmaemu_gemm_options* opt = dbl ? &opt_d : &opt_s;
  int order[K], n = 0;
  for (int owner = 0; owner < p; ++owner)
    for (int j = 0; j < K; ++j)
      if ((j / nb) % p == owner) order[n++] = j;
  static double a[M * K], b[K * N]; /* the permuted operands, as doubles or floats */
  for (int t = 0; t < K; ++t) {
    for (int i = 0; i < M; ++i) put(dbl, a, (size_t)t * M + i, gA[(size_t)order[t] * M + i]);
    for (int j = 0; j < N; ++j) put(dbl, b, (size_t)j * K + t, gB[(size_t)j * K + order[t]]);
  }
  for (int i = 0; i < M * N; ++i) put(dbl, C, i, gC[i]);
  const size_t es = dbl ? 8 : 4;
  for (int k0 = 0; k0 < K; k0 += kb) {
    const int w = K - k0 < kb ? K - k0 : kb;
    if (panel_gemm(dbl, opt, w, (const char*)a + es * (size_t)k0 * M, (const char*)b + es * k0,
                   k0 == 0 ? BETA : 1.0, C) != MMAEMU_OK) {
      fprintf(stderr, "mmaemu_gemm failed\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

/* The local part of a global M x N column-major matrix (block size nb). */
static void scatter(int dbl, const double* g, int rows, int cols, int nb, int myrow, int mycol, int nprow, int npcol,
                    void* local, int lld) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      if ((i / nb) % nprow != myrow || (j / nb) % npcol != mycol) continue;
      const int li = (i / nb / nprow) * nb + i % nb, lj = (j / nb / npcol) * nb + j % nb;
      if (dbl) ((double*)local)[(size_t)lj * lld + li] = g[(size_t)j * rows + i];
      else ((float*)local)[(size_t)lj * lld + li] = (float)g[(size_t)j * rows + i];
    }
}

/* Gathers the distributed C on rank 0: each element is owned by one rank,
 * so OR-ing the bit patterns (0 elsewhere) reassembles it exactly. */
static void gather(int dbl, const void* local, int lld, int nb, int myrow, int mycol, int nprow, int npcol,
                   int in_grid, uint64_t* out) {
  uint64_t* mine = calloc(M * N, 8);
  for (int j = 0; in_grid && j < N; ++j)
    for (int i = 0; i < M; ++i) {
      if ((i / nb) % nprow != myrow || (j / nb) % npcol != mycol) continue;
      const size_t l = (size_t)((j / nb / npcol) * nb + j % nb) * lld + (i / nb / nprow) * nb + i % nb;
      if (dbl) memcpy(&mine[(size_t)j * M + i], (const double*)local + l, 8);
      else memcpy(&mine[(size_t)j * M + i], (const float*)local + l, 4);
    }
  MPI_Reduce(mine, out, M * N, MPI_UINT64_T, MPI_BOR, 0, MPI_COMM_WORLD);
  free(mine);
}

/* Differences between the gathered bits and an expected matrix. */
static int differences(int dbl, const uint64_t* got, const void* want, int report) {
  int bad = 0;
  for (int i = 0; i < M * N; ++i) {
    uint64_t w = 0;
    memcpy(&w, (const char*)want + (size_t)i * (dbl ? 8 : 4), dbl ? 8 : 4);
    if (got[i] != w && bad++ == 0 && report)
      printf("  first difference at (%d, %d): got %0*llx, expected %0*llx\n", i % M, i / M, dbl ? 16 : 8,
             (unsigned long long)got[i], dbl ? 16 : 8, (unsigned long long)w);
  }
  return bad;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* One distributed product on an nprow x npcol grid with block size nb,
 * compared with the panel composition for that nb and grid. */
static void run(int dbl, int nprow, int npcol, int nb) {
  static char want[8 * M * N];
  const int p = nprow * npcol / gcd(nprow, npcol);
  if (rank == 0) expected(dbl, p == 1 ? K : KB, nb, p, want);
  int ctxt, myrow = -1, mycol = -1, info;
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
  const int in_grid = rank < nprow * npcol;
  int lldc = 1;
  void *a = NULL, *b = NULL, *c = NULL;
  if (in_grid) {
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    const int zero = 0, m = M, n = N, k = K;
    const int ma = numroc_(&m, &nb, &myrow, &zero, &nprow), ka = numroc_(&k, &nb, &mycol, &zero, &npcol);
    const int kb = numroc_(&k, &nb, &myrow, &zero, &nprow), nc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    const int llda = ma > 1 ? ma : 1, lldb = kb > 1 ? kb : 1;
    lldc = llda;
    int da[9], db[9], dc[9];
    descinit_(da, &m, &k, &nb, &nb, &zero, &zero, &ctxt, &llda, &info);
    descinit_(db, &k, &n, &nb, &nb, &zero, &zero, &ctxt, &lldb, &info);
    descinit_(dc, &m, &n, &nb, &nb, &zero, &zero, &ctxt, &lldc, &info);
    const size_t es = dbl ? 8 : 4;
    a = calloc((size_t)llda * (ka ? ka : 1), es);
    b = calloc((size_t)lldb * (nc ? nc : 1), es);
    c = calloc((size_t)lldc * (nc ? nc : 1), es);
    scatter(dbl, gA, M, K, nb, myrow, mycol, nprow, npcol, a, llda);
    scatter(dbl, gB, K, N, nb, myrow, mycol, nprow, npcol, b, lldb);
    scatter(dbl, gC, M, N, nb, myrow, mycol, nprow, npcol, c, lldc);
    const int one = 1;
    if (dbl) {
      pdgemm_("N", "N", &m, &n, &k, &ALPHA, a, &one, &one, da, b, &one, &one, db, &BETA, c, &one, &one, dc);
    } else {
      const float fa = (float)ALPHA, fb = (float)BETA;
      psgemm_("N", "N", &m, &n, &k, &fa, a, &one, &one, da, b, &one, &one, db, &fb, c, &one, &one, dc);
    }
  }
  uint64_t* got = rank == 0 ? malloc(sizeof(uint64_t) * M * N) : NULL;
  gather(dbl, c, lldc, nb, myrow, mycol, nprow, npcol, in_grid, got);
  if (rank == 0) {
    const int bad = differences(dbl, got, want, 1);
    ++checks;
    failures += bad != 0;
    printf("%s %dx%d grid, NB %2d: %s\n", dbl ? "PDGEMM" : "PSGEMM", nprow, npcol, nb,
           bad ? "DIFFERENT from the panel composition" : "bit-equal to the owner-ordered panel composition");
    free(got);
  }
  free(a);
  free(b);
  free(c);
  if (in_grid) Cblacs_gridexit(ctxt);
}

/* The comparison can fail: the panel composition differs from one GEMM
 * over all of k, and NB changes the bits (the order of k). */
static void sanity(int dbl) {
  static char one[8 * M * N], nb16[8 * M * N], nb64[8 * M * N];
  static uint64_t w[M * N];
  expected(dbl, K, 1, 1, one);
  expected(dbl, KB, 16, 2, nb16);
  expected(dbl, KB, 64, 2, nb64);
  for (int i = 0; i < M * N; ++i) memcpy(&w[i], nb16 + (size_t)i * (dbl ? 8 : 4), dbl ? 8 : 4);
  const int vs_one = differences(dbl, w, one, 0), vs_nb = differences(dbl, w, nb64, 0);
  printf("%s: with P = 2, the NB 16 composition differs from one GEMM in %d and from NB 64 in %d of %d elements\n",
         dbl ? "PDGEMM" : "PSGEMM", vs_one, vs_nb, M * N);
  ++checks;
  failures += vs_one == 0 || vs_nb == 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setvbuf(stdout, NULL, _IONBF, 0);
  setup_api();
  srand(2026); /* the same operands on every rank; wide exponent range */
  for (int i = 0; i < M * K; ++i) gA[i] = (double)(rand() % 2001 - 1000) / (1 << (rand() % 12)) + 1.0 / 3.0;
  for (int i = 0; i < K * N; ++i) gB[i] = (double)(rand() % 2001 - 1000) / (1 << (rand() % 12)) - 1.0 / 7.0;
  for (int i = 0; i < M * N; ++i) gC[i] = (double)(rand() % 2001 - 1000) / 3.0;
  const char* d = getenv("MMA_DGEMM");
  const int precisions = d && (strcmp(d, "model") == 0 || strncmp(d, "ozaki", 5) == 0) ? 2 : 1;
  static const int grids[][2] = {{1, 2}, {2, 1}, {2, 2}, {1, 4}};
  static const int nbs[] = {16, 64};
  for (int dbl = 0; dbl < precisions; ++dbl) {
    if (rank == 0) sanity(dbl);
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; ++g)
      if (grids[g][0] * grids[g][1] <= size)
        for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; ++b) run(dbl, grids[g][0], grids[g][1], nbs[b]);
  }
  if (rank == 0) printf("%d ranks: %d passed, %d failed\n", size, checks - failures, failures);
  MPI_Finalize();
  return failures != 0;
}
