// The rules a module profile's own settings and a module record's specs and cases share (doc/record-format.md
// §10), each in one place: profile/module_spec.cc calls them before anything runs (a profile that breaks one
// is refused, exit 2) and record/validate_module_*.cc calls them on a record (a record that breaks one is
// refused), so a profile the reader accepts never makes a record the validator refuses.
//
//   outputs_problem         `outputs` is a non-empty list of non-empty names, no two alike
//   CaseNames               no two cases share a name (a match case's `<dim>-<value>` and a refusal case's
//                           `<input>-axis<k>-<size>` can meet: a dim named "x-axis1" meets input x's axis 1)
//   hides_problem           an input's `hides` (don't-care positions, stages/dont_care.h): a bool or integer
//                           input, a non-empty list of distinct names of the named `outputs`
//   refusal_name_problem    a refusal case's name is its folder's (refusal_cases/<name>/): a plain name of at
//                           most kMaxFolderNameBytes bytes
// Each returns "" (or nothing) when the rule holds, else what is wrong, for the caller to prefix with where.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nnx {

std::string outputs_problem(const std::vector<std::string>& names);

// Case names in order: add(name, where) gives the `where` of the earlier case with that name, or nullopt
// (then remembers this one's).
class CaseNames {
 public:
  std::optional<std::string> add(const std::string& name, const std::string& where);

 private:
  std::map<std::string, std::string> first_;
};

std::string refusal_name_problem(const std::string& name);

// `dtype` is the input's dtype name; `outputs` the spec's output names, nullopt when it names none.
std::string hides_problem(const std::string& dtype, const std::vector<std::string>& hides,
                          const std::optional<std::vector<std::string>>& outputs);

}  // namespace nnx
