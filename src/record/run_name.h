// A run's name (doc/runtime-matrix.md, "Axes"): the ONNX Runtime version that ran a record, followed — only
// when the session or the execution provider are not the brief's (ORT_ENABLE_ALL, one intra-op and one
// inter-op thread, no config entry, CPUExecutionProvider, no provider option) — by those settings in parentheses,
// in one fixed order: "1.30.0", "1.30.0 (ORT_DISABLE_ALL, 2 threads, session.set_denormal_as_zero=1,
// OpenVINOExecutionProvider precision=FP32)" (each provider option KEY=VALUE after the provider, in key order).
// The one rule that names a matrix cell, a kept record (stages/kept_outputs.h) and a re-judged record
// (app/rejudge.h), so the three always agree; a run with the brief's settings is named by its version alone.
#pragma once

#include <map>
#include <string>

#include "record/record.h"

namespace nnx {

// "" for the brief's settings; otherwise what differs from them, comma-separated: the level, "N threads",
// each config entry KEY=VALUE (in key order), the provider with its options.
using ProviderOptions = std::map<std::string, std::string>;
std::string settings_label(const SessionOptions& session, const std::string& provider, const ProviderOptions& options);
std::string run_name(const std::string& version, const SessionOptions& session, const std::string& provider,
                     const ProviderOptions& options);
// The record's: its runtime.version ("" while null), session, provider and provider options.
std::string run_name_of(const Record& record);

}  // namespace nnx
