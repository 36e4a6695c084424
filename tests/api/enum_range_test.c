/* SPDX-License-Identifier: BSD-3-Clause */
/* Every enum argument and enum field of every C API entry, passed out of its
   range from C: MMAEMU_ERR_ARGUMENT with a message naming the argument, and
   no undefined behaviour in the library (the sanitizer build runs this test
   under UBSan, which stops at a load of an enum out of its range). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

static int passed = 0, failed = 0;

/* One refused call: its status, and a message that names `arg` and its
   value ("arg = value ...", then the valid values). */
static void expect_refused(const char* entry, const char* arg, int value, int status) {
  const char* message = mmaemu_last_error();
  char named[64];
  snprintf(named, sizeof named, "%s = %d", arg, value);
  if (status == MMAEMU_ERR_ARGUMENT && strstr(message, named) != NULL && strstr(message, "valid") != NULL) {
    ++passed;
    return;
  }
  ++failed;
  fprintf(stderr, "%s: %s = %d: status %d, message '%s'\n", entry, arg, value, status, message);
}

/* Values outside each enum of mmaemu.h. Formats: also the integer ones
   (MMAEMU_S8 .. MMAEMU_S32 = 14 .. 18), which no floating-point or
   block-scaled entry takes. */
static const int kBadFormats[] = {-1, 14, 15, 16, 17, 18, 19, 99, INT_MAX, INT_MIN};
/* Outside the integer GEMM's operand formats (S8, U8, S4, U4): S32 and the
   floating-point formats are formats, but no integer unit's input. */
static const int kBadIntInputs[] = {-1, MMAEMU_FP64, MMAEMU_FP16, MMAEMU_UE4M3, MMAEMU_S32, 19, INT_MAX, INT_MIN};
static const int kBadLayouts[] = {-1, 0, 100, 103, INT_MAX};
static const int kBadTransposes[] = {-1, 0, 110, 114, INT_MIN};
static const int kBadRoundings[] = {-1, 5, 42, INT_MAX};
static const int kBadAccumulates[] = {-1, 3, 7, INT_MIN};
static const int kBadUnits[] = {-1, 4, 7, INT_MAX};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Operands large enough for every call below (none is read: the enum is
   refused first). */
static float fa[64 * 64], fb[64 * 64], fc[64 * 64];
static unsigned char ua[64 * 64], ub[64 * 64], usa[64 * 64], usb[64 * 64];
static unsigned short ha[64 * 64], hb[64 * 64], hc[64 * 64];

/* ---- element-wise units ------------------------------------------------ */

/* input (which = 0) or output (1) of the calls that name a unit. */
static void unit_formats(const mmaemu_model* h100, int which, int v) {
  const mmaemu_format in = which == 0 ? (mmaemu_format)v : MMAEMU_FP16;
  const mmaemu_format out = which == 1 ? (mmaemu_format)v : MMAEMU_FP32;
  const char* arg = which == 0 ? "input" : "output";
  int m, n, k;
  expect_refused("mmaemu_tile_shape", arg, v, mmaemu_tile_shape(h100, in, out, &m, &n, &k));
  expect_refused("mmaemu_tile", arg, v, mmaemu_tile(h100, in, out, ha, hb, fc, fc));
  expect_refused("mmaemu_tile_batch", arg, v, mmaemu_tile_batch(h100, in, out, 1, ha, hb, fc, fc, 1));
  expect_refused("mmaemu_dot_batch", arg, v, mmaemu_dot_batch(h100, in, out, 1, 16, ha, hb, fc, fc, 1));
}

static int gemm_with(const mmaemu_model* h100, const mmaemu_gemm_options* opt) {
  return mmaemu_gemm(h100, opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 4, 4, 4, 1.0, fa, 4, fb, 4, 0.0,
                     fc, 4);
}

/* Each format field of the options set to v in turn, the others at their defaults. */
static void gemm_option_formats(const mmaemu_model* h100, int v) {
  static const char* const names[] = {"a_storage", "b_storage", "c_storage", "input", "output"};
  int field;
  for (field = 0; field < 5; ++field) {
    mmaemu_gemm_options opt;
    mmaemu_format* fields[5];
    mmaemu_gemm_options_init(&opt);
    fields[0] = &opt.a_storage, fields[1] = &opt.b_storage, fields[2] = &opt.c_storage;
    fields[3] = &opt.input, fields[4] = &opt.output;
    *fields[field] = (mmaemu_format)v;
    expect_refused("mmaemu_gemm", names[field], v, gemm_with(h100, &opt));
  }
  expect_refused("mmaemu_hgemm", "output", v,
                 mmaemu_hgemm(h100, (mmaemu_format)v, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 4, 4, 4,
                              1.0f, ha, 4, hb, 4, 0.0f, hc, 4));
}

/* layout (which = 0), ta (1) or tb (2) of every CBLAS-style GEMM. */
static void gemm_layouts(const mmaemu_model* h100, const mmaemu_model* b200, int which, int v) {
  const mmaemu_layout l = which == 0 ? (mmaemu_layout)v : MMAEMU_ROW_MAJOR;
  const mmaemu_transpose ta = which == 1 ? (mmaemu_transpose)v : MMAEMU_NO_TRANS;
  const mmaemu_transpose tb = which == 2 ? (mmaemu_transpose)v : MMAEMU_NO_TRANS;
  const char* arg = which == 0 ? "layout" : which == 1 ? "ta" : "tb";
  mmaemu_gemm_options opt;
  mmaemu_block_scale_desc desc;
  mmaemu_gemm_options_init(&opt);
  mmaemu_block_scale_desc_init(&desc);
  expect_refused("mmaemu_gemm", arg, v,
                 mmaemu_gemm(h100, &opt, l, ta, tb, 4, 4, 4, 1.0, fa, 4, fb, 4, 0.0, fc, 4));
  expect_refused("mmaemu_sgemm", arg, v,
                 mmaemu_sgemm(h100, "fp16", l, ta, tb, 4, 4, 4, 1.0f, fa, 4, fb, 4, 0.0f, fc, 4));
  expect_refused("mmaemu_sgemm_scheduled", arg, v,
                 mmaemu_sgemm_scheduled(h100, "fp16", "chain", l, ta, tb, 4, 4, 4, 1.0f, fa, 4, fb, 4, 0.0f, fc, 4));
  expect_refused("mmaemu_hgemm", arg, v,
                 mmaemu_hgemm(h100, MMAEMU_FP32, l, ta, tb, 4, 4, 4, 1.0f, ha, 4, hb, 4, 0.0f, hc, 4));
  {
    mmaemu_sgemm_options so;
    mmaemu_sgemm_options_init(&so);
    expect_refused("mmaemu_sgemm_ex", arg, v, mmaemu_sgemm_ex(h100, &so, l, ta, tb, 4, 4, 4, 1.0f, fa, 4, fb, 4, 0.0f, fc, 4));
    so.policy = "mxfp8";
    expect_refused("mmaemu_sgemm_ex", arg, v,
                   mmaemu_sgemm_ex(b200, &so, l, ta, tb, 32, 32, 32, 1.0f, fa, 32, fb, 32, 0.0f, fc, 32));
  }
  expect_refused("mmaemu_gemm_block_scaled", arg, v,
                 mmaemu_gemm_block_scaled(b200, &desc, l, ta, tb, 32, 32, 32, 1.0f, ua, 32, usa, 1, ub, 32, usb, 32,
                                          0.0f, fc, 32));
  expect_refused("mmaemu_sgemm_block_scaled", arg, v,
                 mmaemu_sgemm_block_scaled(b200, "mxfp8", l, ta, tb, 32, 32, 32, 1.0f, fa, 32, fb, 32, 0.0f, fc, 32));
  expect_refused("mmaemu_sgemm_block_scaled_acc", arg, v,
                 mmaemu_sgemm_block_scaled_acc(b200, "mxfp8", MMAEMU_ACC_GPU_BLAS, l, ta, tb, 32, 32, 32, 1.0f, fa, 32,
                                               fb, 32, 0.0f, fc, 32));
}

static void gemm_rounding(const mmaemu_model* h100, int v) {
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.input_rounding = (mmaemu_rounding)v;
  expect_refused("mmaemu_gemm", "input_rounding", v, gemm_with(h100, &opt));
  expect_refused("mmaemu_convert", "r", v, mmaemu_convert(MMAEMU_FP32, MMAEMU_FP16, fa, hc, 4, (mmaemu_rounding)v, 0));
}

static void fp8_scaled_formats(const mmaemu_model* h100, int v) {
  mmaemu_fp8_scaled_options opt;
  mmaemu_fp8_scaled_options_init(&opt);
  opt.format = (mmaemu_format)v;
  expect_refused("mmaemu_gemm_fp8_scaled", "format", v,
                 mmaemu_gemm_fp8_scaled(h100, &opt, 4, 4, 4, ua, 4, fa, ub, 4, fb, fc, 4));
  expect_refused("mmaemu_quantize_fp8_blocks", "format", v,
                 mmaemu_quantize_fp8_blocks((mmaemu_format)v, 4, 4, fa, 4, 1, 4, ua, 4, fb));
  expect_refused("mmaemu_convert", "from", v, mmaemu_convert((mmaemu_format)v, MMAEMU_FP32, fa, fb, 4, MMAEMU_RNE, 0));
  expect_refused("mmaemu_convert", "to", v, mmaemu_convert(MMAEMU_FP32, (mmaemu_format)v, fa, fb, 4, MMAEMU_RNE, 0));
}

/* ---- block-scaled units ------------------------------------------------- */

/* Every entry that reads a descriptor, with `desc`. */
static void with_desc(const mmaemu_model* b200, const mmaemu_block_scale_desc* desc, const char* arg, int v) {
  int m, n, k;
  const char* instruction;
  expect_refused("mmaemu_gemm_block_scaled", arg, v,
                 mmaemu_gemm_block_scaled(b200, desc, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 32, 32, 32,
                                          1.0f, ua, 32, usa, 1, ub, 32, usb, 32, 0.0f, fc, 32));
  expect_refused("mmaemu_tile_block_scaled_shape", arg, v,
                 mmaemu_tile_block_scaled_shape(b200, desc, &m, &n, &k, &instruction));
  expect_refused("mmaemu_tile_block_scaled", arg, v,
                 mmaemu_tile_block_scaled(b200, desc, MMAEMU_FP32, ua, usa, ub, usb, fc, fc));
  expect_refused("mmaemu_tile_batch_block_scaled", arg, v,
                 mmaemu_tile_batch_block_scaled(b200, desc, MMAEMU_FP32, 1, ua, usa, ub, usb, fc, fc, 1));
  expect_refused("mmaemu_dot_batch_block_scaled", arg, v,
                 mmaemu_dot_batch_block_scaled(b200, desc, MMAEMU_FP32, 1, 32, ua, usa, ub, usb, fc, fc, 1));
}

/* Each format field of the descriptor set to v in turn. */
static void desc_formats(const mmaemu_model* b200, int v) {
  static const char* const names[] = {"a_format", "b_format", "scale_format"};
  int field;
  for (field = 0; field < 3; ++field) {
    mmaemu_block_scale_desc desc;
    mmaemu_format* fields[3];
    mmaemu_block_scale_desc_init(&desc);
    fields[0] = &desc.a_format, fields[1] = &desc.b_format, fields[2] = &desc.scale_format;
    *fields[field] = (mmaemu_format)v;
    with_desc(b200, &desc, names[field], v);
  }
}

static void scaled_outputs(const mmaemu_model* b200, int v) {
  mmaemu_block_scale_desc desc;
  mmaemu_block_scale_desc_init(&desc);
  expect_refused("mmaemu_tile_block_scaled", "output", v,
                 mmaemu_tile_block_scaled(b200, &desc, (mmaemu_format)v, ua, usa, ub, usb, fc, fc));
  expect_refused("mmaemu_tile_batch_block_scaled", "output", v,
                 mmaemu_tile_batch_block_scaled(b200, &desc, (mmaemu_format)v, 1, ua, usa, ub, usb, fc, fc, 1));
  expect_refused("mmaemu_dot_batch_block_scaled", "output", v,
                 mmaemu_dot_batch_block_scaled(b200, &desc, (mmaemu_format)v, 1, 32, ua, usa, ub, usb, fc, fc, 1));
  expect_refused("mmaemu_quantize_mx", "element", v, mmaemu_quantize_mx((mmaemu_format)v, 32, 32, fa, ua, usa));
  expect_refused("mmaemu_dequantize", "element", v,
                 mmaemu_dequantize((mmaemu_format)v, MMAEMU_UE8M0, 32, 32, ua, usa, 1.0f, fa));
  expect_refused("mmaemu_dequantize", "scale", v,
                 mmaemu_dequantize(MMAEMU_E4M3, (mmaemu_format)v, 32, 32, ua, usa, 1.0f, fa));
}

static void accumulates(const mmaemu_model* h100, const mmaemu_model* b200, int v) {
  mmaemu_gemm_options opt;
  mmaemu_block_scale_desc desc;
  mmaemu_gemm_options_init(&opt);
  opt.accumulate = (mmaemu_accumulate)v;
  expect_refused("mmaemu_gemm", "accumulate", v, gemm_with(h100, &opt));
  mmaemu_block_scale_desc_init(&desc);
  desc.accumulate = (mmaemu_accumulate)v;
  with_desc(b200, &desc, "accumulate", v);
  {
    mmaemu_sgemm_options so;
    mmaemu_sgemm_options_init(&so);
    so.accumulate = (mmaemu_accumulate)v;
    expect_refused("mmaemu_sgemm_ex", "accumulate", v,
                   mmaemu_sgemm_ex(h100, &so, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 4, 4, 4, 1.0f, fa, 4,
                                   fb, 4, 0.0f, fc, 4));
    so.policy = "nvfp4";
    expect_refused("mmaemu_sgemm_ex", "accumulate", v,
                   mmaemu_sgemm_ex(b200, &so, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 32, 32, 32, 1.0f, fa,
                                   32, fb, 32, 0.0f, fc, 32));
  }
  expect_refused("mmaemu_sgemm_block_scaled_acc", "accumulate", v,
                 mmaemu_sgemm_block_scaled_acc(b200, "mxfp8", (mmaemu_accumulate)v, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                               MMAEMU_NO_TRANS, 32, 32, 32, 1.0f, fa, 32, fb, 32, 0.0f, fc, 32));
}

/* mmaemu_gemm_int and the integer batch entries: a_format or b_format (which = 0, 1) set to v. */
static void int_formats(const mmaemu_model* h100, int which, int v) {
  static int32_t ic[64];
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  if (which == 0) opt.a_format = (mmaemu_format)v;
  else opt.b_format = (mmaemu_format)v;
  expect_refused("mmaemu_gemm_int", which == 0 ? "a_format" : "b_format", v,
                 mmaemu_gemm_int(h100, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 4, 4, 4, ua, 4, ub, 4,
                                 1, ic, 4));  /* The integer batch entries read the same options. */
  int m, n, k;
  const char* arg = which == 0 ? "a_format" : "b_format";
  expect_refused("mmaemu_tile_shape_int", arg, v, mmaemu_tile_shape_int(h100, &opt, &m, &n, &k));
  expect_refused("mmaemu_tile_batch_int", arg, v, mmaemu_tile_batch_int(h100, &opt, 1, ua, ub, ic, ic));
  expect_refused("mmaemu_dot_batch_int", arg, v, mmaemu_dot_batch_int(h100, &opt, 1, 4, ua, ub, ic, ic));
}

/* mmaemu_gemm_int: layout (which = 0), ta (1) or tb (2) set to v. */
static void int_layouts(const mmaemu_model* h100, int which, int v) {
  static int32_t ic[64];
  static const char* const names[] = {"layout", "ta", "tb"};
  mmaemu_gemm_int_options opt;
  const int layout = which == 0 ? v : MMAEMU_ROW_MAJOR, ta = which == 1 ? v : MMAEMU_NO_TRANS,
            tb = which == 2 ? v : MMAEMU_NO_TRANS;
  mmaemu_gemm_int_options_init(&opt);
  expect_refused("mmaemu_gemm_int", names[which], v,
                 mmaemu_gemm_int(h100, &opt, (mmaemu_layout)layout, (mmaemu_transpose)ta, (mmaemu_transpose)tb, 4, 4,
                                 4, ua, 4, ub, 4, 1, ic, 4));
}

static void units(const mmaemu_model* b200, int v) {
  mmaemu_block_scale_desc desc;
  mmaemu_block_scale_desc_init(&desc);
  desc.unit = (mmaemu_scaled_unit)v;
  with_desc(b200, &desc, "unit", v);
}

int main(void) {
  mmaemu_model *h100 = NULL, *b200 = NULL;
  int i, which;
  if (mmaemu_model_lookup("H100", &h100) != MMAEMU_OK || mmaemu_model_lookup("B200", &b200) != MMAEMU_OK) {
    fprintf(stderr, "model lookup: %s\n", mmaemu_last_error());
    return 1;
  }
  for (i = 0; i < COUNT(kBadFormats); ++i) {
    for (which = 0; which < 2; ++which) unit_formats(h100, which, kBadFormats[i]);
    gemm_option_formats(h100, kBadFormats[i]);
    fp8_scaled_formats(h100, kBadFormats[i]);
    desc_formats(b200, kBadFormats[i]);
    scaled_outputs(b200, kBadFormats[i]);
  }
  for (i = 0; i < COUNT(kBadIntInputs); ++i)
    for (which = 0; which < 2; ++which) int_formats(h100, which, kBadIntInputs[i]);
  for (i = 0; i < COUNT(kBadLayouts); ++i) int_layouts(h100, 0, kBadLayouts[i]);
  for (i = 0; i < COUNT(kBadTransposes); ++i)
    for (which = 1; which < 3; ++which) int_layouts(h100, which, kBadTransposes[i]);
  for (i = 0; i < COUNT(kBadLayouts); ++i) gemm_layouts(h100, b200, 0, kBadLayouts[i]);
  for (i = 0; i < COUNT(kBadTransposes); ++i)
    for (which = 1; which < 3; ++which) gemm_layouts(h100, b200, which, kBadTransposes[i]);
  for (i = 0; i < COUNT(kBadRoundings); ++i) gemm_rounding(h100, kBadRoundings[i]);
  for (i = 0; i < COUNT(kBadAccumulates); ++i) accumulates(h100, b200, kBadAccumulates[i]);
  for (i = 0; i < COUNT(kBadUnits); ++i) units(b200, kBadUnits[i]);
  mmaemu_model_free(h100);
  mmaemu_model_free(b200);
  printf("enum range: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
