// SPDX-License-Identifier: BSD-3-Clause
// The C API's enum arguments and fields, read as plain integers and checked
// against the values the header defines before any becomes an internal enum
// (mmaemu.h gives C++ its enums the underlying type int, so a C caller's
// out-of-range value is read without undefined behaviour).
#pragma once

#include <span>

#include "mmaemu/mmaemu.h"

namespace mmaemu::api {

/// One value a C enum argument may take, with its name in mmaemu.h.
struct EnumValue {
  int value;
  const char* name;
};

/// Throws std::invalid_argument (MMAEMU_ERR_ARGUMENT under guarded())
/// naming `arg`, its value and the valid values, unless `value` is one of
/// `valid`.
void check_enum(const char* arg, int value, std::span<const EnumValue> valid);
/// check_enum() as a status: MMAEMU_OK, or MMAEMU_ERR_ARGUMENT with its
/// message for mmaemu_last_error().
int enum_status(const char* arg, int value, std::span<const EnumValue> valid);

#define MMAEMU_VALUE(v) EnumValue{v, #v}
inline constexpr EnumValue kLayouts[] = {MMAEMU_VALUE(MMAEMU_ROW_MAJOR), MMAEMU_VALUE(MMAEMU_COL_MAJOR)};
inline constexpr EnumValue kTransposes[] = {MMAEMU_VALUE(MMAEMU_NO_TRANS), MMAEMU_VALUE(MMAEMU_TRANS),
                                            MMAEMU_VALUE(MMAEMU_CONJ_TRANS)};
inline constexpr EnumValue kRoundings[] = {MMAEMU_VALUE(MMAEMU_RNE), MMAEMU_VALUE(MMAEMU_RZ),
                                           MMAEMU_VALUE(MMAEMU_RD), MMAEMU_VALUE(MMAEMU_RU),
                                           MMAEMU_VALUE(MMAEMU_RNA)};
inline constexpr EnumValue kAccumulates[] = {MMAEMU_VALUE(MMAEMU_ACC_GPU_BLAS), MMAEMU_VALUE(MMAEMU_ACC_INTO_C),
                                             MMAEMU_VALUE(MMAEMU_ACC_BLAS_INTO_C)};
inline constexpr EnumValue kScaledUnits[] = {MMAEMU_VALUE(MMAEMU_UNIT_AUTO), MMAEMU_VALUE(MMAEMU_UNIT_T),
                                             MMAEMU_VALUE(MMAEMU_UNIT_ST), MMAEMU_VALUE(MMAEMU_UNIT_GST)};
/// The formats of the element-wise units (mmaemu_gemm, mmaemu_tile, ...).
inline constexpr EnumValue kGemmFormats[] = {
    MMAEMU_VALUE(MMAEMU_FP64), MMAEMU_VALUE(MMAEMU_FP32), MMAEMU_VALUE(MMAEMU_TF32),
    MMAEMU_VALUE(MMAEMU_BF16), MMAEMU_VALUE(MMAEMU_FP16), MMAEMU_VALUE(MMAEMU_E4M3),
    MMAEMU_VALUE(MMAEMU_E5M2), MMAEMU_VALUE(MMAEMU_E4M3FNUZ), MMAEMU_VALUE(MMAEMU_E5M2FNUZ)};
/// The floating-point and scale formats (mmaemu_convert).
inline constexpr EnumValue kConvertFormats[] = {
    kGemmFormats[0], kGemmFormats[1], kGemmFormats[2], kGemmFormats[3], kGemmFormats[4],
    kGemmFormats[5], kGemmFormats[6], kGemmFormats[7], kGemmFormats[8], MMAEMU_VALUE(MMAEMU_E3M2),
    MMAEMU_VALUE(MMAEMU_E2M3), MMAEMU_VALUE(MMAEMU_E2M1), MMAEMU_VALUE(MMAEMU_UE8M0), MMAEMU_VALUE(MMAEMU_UE4M3)};
/// The integer units' operand formats (mmaemu_gemm_int).
inline constexpr EnumValue kIntInputs[] = {MMAEMU_VALUE(MMAEMU_S8), MMAEMU_VALUE(MMAEMU_U8), MMAEMU_VALUE(MMAEMU_S4),
                                           MMAEMU_VALUE(MMAEMU_U4)};
/// Every format (mmaemu_format_name, mmaemu_format_parse).
inline constexpr EnumValue kFormats[] = {
    kConvertFormats[0],  kConvertFormats[1],  kConvertFormats[2],  kConvertFormats[3],  kConvertFormats[4],
    kConvertFormats[5],  kConvertFormats[6],  kConvertFormats[7],  kConvertFormats[8],  kConvertFormats[9],
    kConvertFormats[10], kConvertFormats[11], kConvertFormats[12], kConvertFormats[13], kIntInputs[0],
    kIntInputs[1],       kIntInputs[2],       kIntInputs[3],       MMAEMU_VALUE(MMAEMU_S32)};
/// The element and scale formats of the block-scaled units, and their outputs.
inline constexpr EnumValue kScaledElements[] = {MMAEMU_VALUE(MMAEMU_E4M3), MMAEMU_VALUE(MMAEMU_E5M2),
                                                MMAEMU_VALUE(MMAEMU_E3M2), MMAEMU_VALUE(MMAEMU_E2M3),
                                                MMAEMU_VALUE(MMAEMU_E2M1)};
inline constexpr EnumValue kScaleFormats[] = {MMAEMU_VALUE(MMAEMU_UE8M0), MMAEMU_VALUE(MMAEMU_UE4M3)};
inline constexpr EnumValue kScaledOutputs[] = {MMAEMU_VALUE(MMAEMU_FP32), MMAEMU_VALUE(MMAEMU_FP16)};
#undef MMAEMU_VALUE

}  // namespace mmaemu::api
