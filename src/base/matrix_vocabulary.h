// The vocabulary of a runtime matrix, nnx.runtime-matrix/1 (doc/runtime-matrix.md): the document's keys, a
// runtime's (a cell's) and drift's. Names only, at the bottom layer, so the matrix's writer, its reader, its
// check and its pages spell them from here; whoever needs them includes this header (record_vocabulary.h,
// which holds the format id kMatrixFormat beside the others, does not).
#pragma once

#include "base/record_vocabulary.h"

namespace nnx::rf {

namespace matrix_key {  // the document
inline constexpr const char* kFormat = "format";
inline constexpr const char* kReport = "report";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kRuntimes = "runtimes";
inline constexpr const char* kDrift = "drift";
inline constexpr const char* kShard = "shard";  // only in one shard's document
inline constexpr const char* kBalancedBy = "balanced_by";  // a shard balanced by an earlier matrix: its sha256
inline constexpr const char* kPartings = "partings";  // where a departing cell parts from the newest (when any)
inline constexpr const char* kReportPath = "path";      // report.path
inline constexpr const char* kReportSha256 = "sha256";  // report.sha256
}  // namespace matrix_key

namespace matrix_runtime_key {  // runtimes[i]
inline constexpr const char* kVersion = "version";
inline constexpr const char* kLibrarySha256 = "library_sha256";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kRecords = "records";
inline constexpr const char* kOutputs = "outputs";
inline constexpr const char* kSettings = "settings";  // a cell's settings when not the brief's (matrix/cell_settings.h)
inline constexpr const char* kCell = "cell";  // beside settings: the cell's name, "VERSION (SETTINGS)" (record/run_name.h)
inline constexpr const char* kHost = "host";  // the host the cell ran on (base/host_facts.h); none in a document before it
inline constexpr const char* kSeconds = "seconds";  // the cell's wall time; none in a document before it
// runtimes[i].outputs.<profile>[k]
inline constexpr const char* kCase = "case";
inline constexpr const char* kShape = "shape";
inline constexpr const char* kValues = "values";
}  // namespace matrix_runtime_key

namespace drift_key {  // drift
inline constexpr const char* kCases = "cases";
inline constexpr const char* kBeyondTolerance = "beyond_tolerance";
// drift.cases[i], drift.cases[i].versus_newest[j] and drift.beyond_tolerance[j]
inline constexpr const char* kProfile = "profile";
inline constexpr const char* kCase = "case";
inline constexpr const char* kRuntimes = "runtimes";
inline constexpr const char* kMaxAbsDifference = "max_abs_difference";
inline constexpr const char* kMaxUlps = "max_ulps";
inline constexpr const char* kPair = "pair";
inline constexpr const char* kNewest = "newest";
inline constexpr const char* kVersusNewest = "versus_newest";
inline constexpr const char* kVersion = "version";
inline constexpr const char* kWithinTolerance = "within_tolerance";
// drift.axes[i] (a matrix with settings axes only): a cell of other settings against its release's cell with
// the brief's settings, per profile
inline constexpr const char* kAxes = "axes";
inline constexpr const char* kAgainst = "against";
inline constexpr const char* kCasesCompared = "cases_compared";
inline constexpr const char* kTolerance = "tolerance";  // {rtol, atol}: the profile's, which judged the entry
}  // namespace drift_key

}  // namespace nnx::rf
