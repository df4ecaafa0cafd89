// Localisation of a parity failure (doc/localisation.md): where in the graph ONNX Runtime parts from PyTorch
// (or, for a data-only record, from ONNX's reference evaluator),
// and whether that node introduces the error or only carries it. Called after parity by run (automatically
// when a module or imported-file record's parity failed; on request with --localize) and by execute
// --localize (which implies the torch reference), and by a matrix's parting (matrix/parting.h); its object is the
// parity detail's `localisation`.
//
// One case is localised (the first match case that failed as a mismatch, else the first match case):
//  1. The reference values (module_localisation.h values_from): PyTorch's, the worker rebuilding the module
//     and writing every intermediate value of that case, and its float64 counterpart, as tensor files in a
//     scratch folder (run: of the profile folder; else a temporary one; worker/LOCALISATION.md,
//     "module_intermediates"): per FX node for a dynamo export, per submodule for a TorchScript one; for a
//     data-only record, ONNX's reference evaluator's, per ONNX value ("graph_intermediates").
//     A time cap reached before a departure leaves it not-localised (a value not compared may depart).
//  2. Alignment (localisation_alignment.h): each PyTorch value with the ONNX value it became, or left out with
//     the reason; the coverage counts both sides.
//  3. At the record's optimisation level and at ORT_DISABLE_ALL (localisation_levels.h): the values that
//     survive the level's optimised graph are marked as outputs in bounded groups (at most `memory_bytes` of
//     values per session), each group in its own session, compared one value at a time with PyTorch and the
//     oracle by value_departure.h's test; the marked outputs' effect on the final outputs is checked.
//  4. The first departing value, its node re-run alone (grown up to where PyTorch gives every input) on
//     PyTorch's own inputs: it introduces the error when it still departs, else it carries one; the same for
//     the next departing value; the cut written as a repro (localisation_repro.h).
// Never throws for what cannot be localised: the object's `status` is "not-localised" with `why`.
// Interrupted propagates.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "stages/stage_context.h"

namespace nnx {

struct LocaliseLimits {
  std::uint64_t memory_bytes = std::uint64_t{256} << 20;  // values marked as outputs in one session, at most
  std::chrono::seconds time_cap{600};                      // no new group starts after it
};

// `repro`: the folder the repro is written to (nullopt: none is written).
nlohmann::json localise(StageContext& context, const LocaliseLimits& limits,
                        const std::optional<std::filesystem::path>& repro);

// When run and execute localise: after a parity failure with a mismatch case (run's default), always
// (--localize: a passing record too), or never (--no-localize).
enum class LocaliseWhen { parity_failed, always, never };

// Localises the record when `when` says so and its kind can be (can_localise), starting a worker when none
// runs (run hands its worker on before parity), and keeps the object in the parity detail's `localisation`.
// Under run the repro is the record's: <profile folder>/repro (its files listed by list_repro_files once
// app/repro_record.h made its record); under execute it goes to `repro_beside` (a folder beside the output
// the caller names; nullopt: none is written, so the executed record's folder is never changed). Returns the
// folder a repro was written to, nullopt when none was.
std::optional<std::filesystem::path> localise_after_parity(
    StageContext& context, LocaliseWhen when, const LocaliseLimits& limits,
    const std::optional<std::filesystem::path>& repro_beside = std::nullopt);

// Every file under <profile_folder>/repro listed in the record's artifacts, role repro, in path order.
void list_repro_files(Record& record, const std::filesystem::path& profile_folder);

}  // namespace nnx
