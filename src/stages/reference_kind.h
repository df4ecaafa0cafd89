// What parity compares ONNX Runtime with (doc/record-format.md §4 parity, §7, §10; doc/reading-a-failure.md,
// "What the reference is"). Three references, one seam:
//   torch   PyTorch, computed by the exporter worker: a feed-forward record's §2 network in eval mode under
//           torch.no_grad() on the exact float32 case tensors, raw float32 frames both ways (worker/PROTOCOL.md,
//           "reference"), a module record's module rebuilt from its factory (stages/module_reference.h);
//           what a run uses, and `execute --reference torch`;
//   native  a feed-forward record's C++ float32 forward (model/feedfwd.h): no Python;
//   stored  a module record's outputs stored with its artifacts by its run: no Python, none of its code.
// `reference_for` is the one rule for which reference a record is executed with (every front end: the
// command line, Python, the C++ API and a runtime matrix hand it what their caller asked, or nothing). Each kind
// provides its own (parity_kind.h prepare): the feed-forward net's stages/feedfwd_reference.h, a module's
// stages/module_reference.h (torch) or its stored outputs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/front_end.h"

namespace nnx {

enum class ReferenceKind { torch, native, stored };

std::string_view reference_name(ReferenceKind kind);            // "torch" | "native" | "stored"
std::optional<ReferenceKind> parse_reference(std::string_view name);
// The reference a front end's `reference` argument names; UsageError naming every choice for anything else.
ReferenceKind reference_named(std::string_view name);

// What a record holds for parity to compare with besides PyTorch: a feed-forward record its network's
// config (the native forward), a module record its stored outputs.
enum class RecordReference { feed_forward_network, module_outputs };

// The reference a record is executed with, for each record of whatever the caller handed (a record, a
// report). `asked` is what the caller named, nullopt when it named none:
//   nullopt  the record's default: a module record's stored outputs, whatever the front end (executing
//            someone else's record never runs their code); a feed-forward record's native forward, except
//            from Python, whose default is PyTorch as the original's execute (the tool's own network, not
//            the record's code);
//   torch    PyTorch (for a module record: its factory, imported only because the caller asked);
//   native   the reference without Python: a module record's is its stored outputs;
//   stored   a module record's stored outputs; a feed-forward record stores none: UsageError naming both
//            choices it has.
ReferenceKind reference_for(RecordReference record, std::optional<ReferenceKind> asked, FrontEnd front_end);

}  // namespace nnx
