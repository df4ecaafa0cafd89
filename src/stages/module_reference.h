// A module record's torch reference under `execute --reference torch` (doc/record-format.md §10;
// doc/profile-files.md, "Module profiles"): the only time executing a module record runs code the record
// names, because its caller asked for it (stages/reference_kind.h reference_for: never by default).
//
// `factory_to_run` decides what would run before anything is imported: a `FILE.py:FACTORY` factory's file is
// the record's path, absolute as recorded or else resolved against the folder of the record or report file
// being executed (never the caller's current folder); when nothing is there (a report moved to another
// folder) or the record was handed over without a file, the record's copy of it in its artifacts under
// `root` (artifacts/factory_copy.h; hashed and verified with them), when the record lists one. Its bytes must
// hash to the record's `source_sha256` (ConformanceError naming the file, both digests and the way out when
// they do not: a file at the recorded path with other bytes is refused, not passed over for the copy;
// UsageError when there is neither a file nor a copy, or the file cannot be read). A
// `package.module:FACTORY` factory names no file: the worker's answer is compared after its import. A record
// of an imported ONNX file (§11) rebuilds the module its model variant names, each graph input given to the
// forward parameter its `bind` names; one checked against its data sets alone names no module and is refused
// (UsageError: its stored outputs are the way out).
//
// `recompute_module_references`, called by the module parity stage after load verified the stored tensors
// (each read again, checked, as the request is built: stored_tensors.h): tells stderr which file it is about to run, asks the worker to rebuild the module in a child
// forked for it (worker/PROTOCOL.md, "module_reference": the worker hashes the very bytes it imports) and
// fills context.module_references with PyTorch's outputs for every case expected to match. A factory that
// does not import is RuntimeUnavailable (missing-dependency, exit 10: the record is not written, as for no
// PyTorch); a worker that imported other bytes than the record's is ConformanceError; a factory that raises,
// a module whose state differs, a worker that could not answer leave the cases out and say why in
// context.module_reference_missing (each such case a mismatch blamed on the reference).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "record/record.h"
#include "worker/tensor_wire.h"
#include "stages/stage_context.h"

namespace nnx {

struct FactoryToRun {
  std::string factory;                        // the record's FILE.py:FACTORY or package.module:FACTORY
  std::optional<std::filesystem::path> file;  // the FILE.py resolved, absolute; nullopt for a package factory
  std::string sha256;                         // the file's bytes as checked (its record's source_sha256)
  // The parity detail's statement of what ran: {"factory", "file", "sha256"} (file and sha256 null for a
  // package factory, whose sha256 the worker's answer gives).
  nlohmann::json detail() const;
};

FactoryToRun factory_to_run(const Record& record, const std::optional<std::filesystem::path>& record_folder,
                            const std::filesystem::path& root);

void recompute_module_references(StageContext& context);

// What every request that rebuilds the record's module holds (worker/PROTOCOL.md, "module_reference"): `op`,
// the factory, its file and digest as checked, the bind, the input specs and the output names; and one case's
// stored inputs as frames ({name, inputs}), each read again and checked (stored_tensors.h).
nlohmann::json rebuild_request(const Record& record, const FactoryToRun& factory, const char* op);
nlohmann::json case_frames(const StageContext& context, const RecordCase& c, OutgoingFrames& frames);

}  // namespace nnx
