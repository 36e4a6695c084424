// SPDX-License-Identifier: BSD-3-Clause
// The C API's model introspection (mmaemu.h, mmaemu_model_unit*): the
// block-FMA units of a model as the registry holds them, their parameters
// as the field table prints them (models/fields.h).
#include <cstring>
#include <string>

#include "api/api_error.h"
#include "api/model_of.h"
#include "mmaemu/mmaemu.h"
#include "models/fields.h"
#include "models/model.h"

namespace {

using namespace mmaemu;

// The i-th unit, or null with the error stored in `status`.
const ModelRow* unit_at(const mmaemu_model* model, size_t i, const char* fn, int& status) {
  if (!model) {
    status = api::fail(MMAEMU_ERR_ARGUMENT, std::string(fn) + ": null model");
    return nullptr;
  }
  const Model& m = api::model_of(model);
  if (i >= m.rows.size()) {
    status = api::fail(MMAEMU_ERR_ARGUMENT, std::string(fn) + ": unit " + std::to_string(i) + " of " + m.name +
                                                ", which has " + std::to_string(m.rows.size()) + " units");
    return nullptr;
  }
  return &m.rows[i];
}

}  // namespace

extern "C" {

size_t mmaemu_model_unit_count(const mmaemu_model* model) {
  return model ? api::model_of(model).rows.size() : 0;
}

int mmaemu_model_unit(const mmaemu_model* model, size_t i, mmaemu_unit_info* info) {
  return api::guarded([&]() -> int {
    if (!info) return api::fail(MMAEMU_ERR_ARGUMENT, "mmaemu_model_unit: null info");
    int status = MMAEMU_OK;
    const ModelRow* row = unit_at(model, i, "mmaemu_model_unit", status);
    if (!row) return status;
    info->input = static_cast<mmaemu_format>(row->in);
    info->output = static_cast<mmaemu_format>(row->out);
    info->m = row->m;
    info->n = row->n;
    info->k = row->k;
    info->gemm_default = row->gemm_default ? 1 : 0;
    info->instruction = row->instr;
    return MMAEMU_OK;
  });
}

int mmaemu_model_unit_parameters(const mmaemu_model* model, size_t i, char* buf, size_t size, size_t* length) {
  return api::guarded([&]() -> int {
    if (!length || (!buf && size))
      return api::fail(MMAEMU_ERR_ARGUMENT, "mmaemu_model_unit_parameters: null length, or null buf with size > 0");
    int status = MMAEMU_OK;
    const ModelRow* row = unit_at(model, i, "mmaemu_model_unit_parameters", status);
    if (!row) return status;
    const std::string text = fields::read_params(*row);
    *length = text.size();
    if (size) {
      const size_t n = text.size() < size ? text.size() : size - 1;
      std::memcpy(buf, text.data(), n);
      buf[n] = '\0';
    }
    return MMAEMU_OK;
  });
}

}  // extern "C"
