// translate_error (python/bindings.h): every exception a function of nnx._core lets out, as the Python
// exception of nnx._errors its kind is: a ConformanceError or one of its subclasses (ArgumentError for an
// argument of a type the function does not take), KeyboardInterrupt for an interrupted run, MemoryError when
// memory ran out, and a Python exception raised inside as it was. No exception of the core leaves as
// RuntimeError or SystemError. And usage_problems: which class a profile's problems are raised as, by its kind.
#include <new>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/front_end.h"
#include "profile/profile.h"
#include "python/bindings.h"

namespace nnx::python {
namespace py = pybind11;

bool usage_problems(const nlohmann::json& value) { return model_kind_facts(profile_kind_of_json(value)).users_model; }

namespace {

// Sets nnx._errors.<cls>(message, problems) as the current Python exception. Text that is not UTF-8 (a
// path's bytes) is decoded with U+FFFD in place of what cannot be read: the exception is always made.
void raise(const char* cls, const std::string& message, const std::vector<std::string>& problems = {}) {
  const auto text = [](const std::string& bytes) {
    return py::reinterpret_steal<py::object>(
        PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
  };
  py::list listed;
  for (const auto& problem : problems) listed.append(text(problem));
  py::object type = py::module_::import("nnx._errors").attr(cls);
  py::object instance = type(text(message), listed);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

// The Python class for an error kind, with the hint base/front_end.h words for Python.
void raise_error(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::folder_in_use:  // problems: the core's own words, for front ends that add their hint
      return raise("FolderInUse", e.what() + hint(e.kind()), {e.what()});
    case ErrorKind::usage:
    case ErrorKind::root_in_use: return raise("UsageError", e.what());
    case ErrorKind::runtime_unavailable: return raise("RuntimeUnavailable", e.what() + hint(e.kind()));
    case ErrorKind::unreadable: return raise("ArtifactIOError", e.what());
    case ErrorKind::interrupted: return PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    case ErrorKind::io: return raise("WriteError", e.what());
    case ErrorKind::refused: return raise("ConformanceError", e.what());
  }
}

}  // namespace

void translate_error(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const ArgumentProblem& e) {
    raise("ArgumentError", e.message);
  } catch (const ProblemList& e) {
    raise(e.usage ? "UsageError" : "ConformanceError", e.message, e.problems);
  } catch (const Error& e) {
    raise_error(e);
  } catch (const py::error_already_set&) {
    throw;  // a Python exception already: pybind11 restores it as it is
  } catch (const py::stop_iteration&) {
    throw;  // the end of an iteration, not an error
  } catch (const py::builtin_exception& e) {
    raise("ConformanceError", e.what());  // a conversion pybind11 refused (a value of the wrong type)
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError, as Python's own
  } catch (const std::exception& e) {
    raise("ConformanceError", e.what());  // what no rule named (a library's exception) is a refusal too
  }
}

}  // namespace nnx::python
