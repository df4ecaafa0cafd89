// The closed set of model kinds and the one table of what each kind is (doc/architecture.md, "Adding a model
// kind"). A kind is how a profile's model.onnx and its data sets are obtained; every fact a shared layer asks
// of a kind is a field of ModelKindFacts, given by one switch the compiler checks (model_kind_facts), so shared
// code asks the table and never tells the kinds apart itself. What a kind does rather than is lives in the
// hook tables of the layers that run it: Profile's members (profile/profile.cc) and the stages' hooks
// (stages/kind_hooks.cc). A new kind is an enumerator here, its row in model_kind.cc and its hooks there.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace nnx {

enum class ModelKind {
  feed_forward,  // the built-in net (doc/record-format.md §2)
  module,        // the user's module, by its factory (§10)
  onnx_file,     // the user's own model.onnx and data sets (§11)
};

// The record a kind writes. `brief`: the brief's nnx.export-conformance/1 (§2–§6: its config, dtype and a case
// by its shape); its bytes never change, so nothing is added to it. `named_tensors`: the successor's (§10,
// §11): inputs, dims and outputs by name, a case's tensors stored with the artifacts under roles of their own,
// a level that counts the cases that ran, ONNX Runtime's log text kept in a stage detail.
enum class RecordForm { brief, named_tensors };

struct ModelKindFacts {
  std::string_view format;                    // its records' format id
  RecordForm form;                            // the record it writes
  std::span<const char* const> record_keys;   // its records' top-level keys, in order
  std::string_view profile_class;             // the kind's name Python's _profiles.py picks a profile class by
  std::string_view record_noun;               // "a module record" (messages naming a document)
  std::string_view record_note;               // said after the format id ("an imported ONNX file"), or ""
  bool exported;                              // the tool exports it (its profile names an exporter); else imported
  bool native_net;                            // a net the core builds: a native forward and a C++ float64 oracle
  bool users_model;                           // the user's model: its profile's problems are usage errors
  std::string_view model_member;              // the record's key naming its model, or "" (none)
  std::string_view model_label;               // the pages' word for that model
  std::string_view model_label_key;           // model_member's key whose text the pages show
  std::string_view stored_reference_words;    // what a stored reference is, in words
};

const ModelKindFacts& model_kind_facts(ModelKind kind);

// The kind of a record of format `format`, the one reading of a format id for every reader (the validator,
// the record reader, the pages): nnx.export-conformance/1 the built-in net, nnx.module-conformance/1 a
// module, nnx.model-conformance/1 an ONNX file (the one kind it holds today); nullopt for any other id.
std::optional<ModelKind> model_kind_of_format(std::string_view format);

// The facts of the kind of a record of format `format`; a format no kind has reads as the built-in net's
// (the brief's v1, whose own format rule then names the formats there are).
const ModelKindFacts& record_kind_facts(std::string_view format);

}  // namespace nnx
