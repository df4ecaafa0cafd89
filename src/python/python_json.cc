// Python objects → nlohmann::json with the strictness of `_dumps` + the core's strict parser (python_json.h).
// Exact dicts, lists, tuples, str, int, float, bool and None take the C API's fast paths; any other Mapping or
// Sequence goes through its Python protocol, as `_plain` reads it.
#include "python/python_json.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/json_strict.h"
#include "base/json_tape.h"

namespace nnx::python {
namespace {

namespace py = pybind11;
using nlohmann::json;

// A refusal found while converting: the reason, after "<what> is not strict JSON: ".
struct Refused {
  std::string reason;
};

std::string type_name(PyObject* value) { return Py_TYPE(value)->tp_name; }

class Converter {
 public:
  // True when some key was an int, float, bool or None: json.dumps wrote it as text, so the round trip differed.
  bool non_string_key = false;
  JsonTape& tape;
  std::vector<PyObject*> held_;  // the references `Held` takes (below)

  void convert(PyObject* value, std::size_t depth) {
    // The exact types a record is made of first, each by one type comparison (PyFloat_Check of a str
    // would ask for its subtypes); then the same questions for subclasses, in json.dumps' order (no type
    // is both a str and a number, so the order of the two groups changes no answer).
    PyTypeObject* type = Py_TYPE(value);
    if (type == &PyUnicode_Type) return tape.string(text(value));
    if (type == &PyDict_Type) return dict(value, depth + 1);
    if (type == &PyFloat_Type) return tape.number(finite(PyFloat_AS_DOUBLE(value)));
    if (type == &PyLong_Type) return integer(value);
    if (type == &PyList_Type) return sequence(value, depth + 1);
    if (value == Py_None) return tape.null();
    if (PyBool_Check(value)) return tape.boolean(value == Py_True);
    if (PyLong_Check(value)) return integer(value);
    if (PyFloat_Check(value)) return tape.number(finite(PyFloat_AS_DOUBLE(value)));
    if (PyUnicode_Check(value)) return tape.string(text(value));
    if (PyDict_CheckExact(value)) return dict(value, depth + 1);
    if (PyList_Check(value) || PyTuple_Check(value)) return sequence(value, depth + 1);
    return other(value, depth);
  }

 private:
  static double finite(double d) {
    if (!std::isfinite(d)) throw Refused{"Out of range float values are not JSON compliant"};
    return d;
  }

  void integer(PyObject* value) {
    int overflow = 0;
    const long long signed_value = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0) {
      if (signed_value == -1 && PyErr_Occurred()) throw py::error_already_set();
      if (signed_value >= 0) return tape.unsigned_integer(static_cast<std::uint64_t>(signed_value));  // as parsed
      return tape.integer(static_cast<std::int64_t>(signed_value));
    }
    if (overflow > 0) {
      const unsigned long long unsigned_value = PyLong_AsUnsignedLongLong(value);
      if (!PyErr_Occurred()) return tape.unsigned_integer(static_cast<std::uint64_t>(unsigned_value));
      PyErr_Clear();
    }
    std::string shown = "an integer";
    if (PyObject* repr = PyObject_Repr(value)) {
      Py_ssize_t size = 0;
      if (const char* data = PyUnicode_AsUTF8AndSize(repr, &size)) {
        shown = std::string(data, static_cast<std::size_t>(std::min<Py_ssize_t>(size, 80)));
        if (size > 80) shown += "...";
      }
      Py_DECREF(repr);
    }
    PyErr_Clear();
    throw Refused{"integer " + shown + " does not fit in int64 or uint64"};
  }

  static std::string_view text(PyObject* value) {
    if (PyUnicode_IS_COMPACT_ASCII(value)) {  // its UTF-8 form is its own bytes: no call
      return std::string_view(static_cast<const char*>(PyUnicode_DATA(value)),
                              static_cast<std::size_t>(PyUnicode_GET_LENGTH(value)));
    }
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value, &size);
    if (!data) {  // a lone surrogate: json.dumps escaped it, the strict parser refused the escape
      PyErr_Clear();
      throw Refused{"invalid surrogate escape: a string holds a lone surrogate"};
    }
    return std::string_view(data, static_cast<std::size_t>(size));
  }

  static void enter(std::size_t depth) {
    if (depth > kMaxJsonDepth) {
      throw Refused{"nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
    }
  }

  // A key as json.dumps writes it: a str as is; an int, float, bool or None as its JSON text (noted: the
  // round trip then differs); anything else refused.
  void key(PyObject* k) {
    if (Py_TYPE(k) == &PyUnicode_Type || PyUnicode_Check(k)) return tape.string(text(k));
    if (k == Py_None || PyBool_Check(k) || PyLong_Check(k) || PyFloat_Check(k)) {
      if (PyFloat_Check(k)) finite(PyFloat_AS_DOUBLE(k));
      non_string_key = true;
      py::str shown(k == Py_None ? py::str("null") : PyBool_Check(k) ? py::str(k == Py_True ? "true" : "false")
                                                                      : py::repr(k));
      return tape.string(shown.cast<std::string>());
    }
    throw Refused{"keys must be str, int, float, bool or None, not " + type_name(k)};
  }

  // A dict's keys and values, or a list's or tuple's items, each held by a new reference for as long as they are
  // read: reading one may call back into Python (a Mapping's items(), a Sequence's iteration, an int
  // subclass's repr), which may empty or free the container it came from. Taken in one go (PyDict_Next and
  // the item arrays call no Python), they live on `held_` (indices, as nested snapshots may move it) and
  // are released when the scope ends, exception or not.
  class Held {
   public:
    explicit Held(std::vector<PyObject*>& stack) : stack_(stack), start_(stack.size()) {}
    ~Held() {
      for (std::size_t i = start_; i < stack_.size(); ++i) Py_DECREF(stack_[i]);
      stack_.resize(start_);
    }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    void hold(PyObject* item) { stack_.push_back(Py_NewRef(item)); }
    std::size_t size() const { return stack_.size() - start_; }
    PyObject* operator[](std::size_t i) const { return stack_[start_ + i]; }

   private:
    std::vector<PyObject*>& stack_;
    const std::size_t start_;
  };

  void dict(PyObject* value, std::size_t depth) {
    enter(depth);
    Held pairs(held_);
    Py_ssize_t position = 0;
    PyObject* k = nullptr;
    PyObject* v = nullptr;
    while (PyDict_Next(value, &position, &k, &v)) {
      pairs.hold(k);
      pairs.hold(v);
    }
    const std::size_t slot = tape.open_object();
    for (std::size_t i = 0; i < pairs.size(); i += 2) {
      key(pairs[i]);
      convert(pairs[i + 1], depth);
    }
    tape.close(slot, pairs.size() / 2);
  }

  void sequence(PyObject* value, std::size_t depth) {
    enter(depth);
    Held items(held_);
    const Py_ssize_t size = PySequence_Fast_GET_SIZE(value);
    PyObject** borrowed = PySequence_Fast_ITEMS(value);
    for (Py_ssize_t i = 0; i < size; ++i) items.hold(borrowed[i]);
    const std::size_t slot = tape.open_array();
    for (std::size_t i = 0; i < items.size(); ++i) convert(items[i], depth);
    tape.close(slot, items.size());
  }

  // A new reference a call returned, or its Python error raised.
  static py::object owned(PyObject* made) {
    if (!made) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(made);
  }

  // Any other Mapping (through .items()) or Sequence (through iteration), as `_plain` reads them; else refused.
  void other(PyObject* value, std::size_t depth) {
    static const py::handle mapping = py::module_::import("collections.abc").attr("Mapping").cast<py::object>().release();
    static const py::handle sequence_type = py::module_::import("collections.abc").attr("Sequence").cast<py::object>().release();
    const py::handle object(value);
    if (py::isinstance(object, mapping)) {
      // As `_plain` makes it: a dict of its items (a key given twice keeps its first place and last value,
      // so the tape holds each key once, as the rules read it: base/json_view.h).
      // Its items are first made a list of our own (items() may return a view of what later calls change),
      // each pair a tuple of our own; the dict holds every key and value from then on.
      enter(depth + 1);
      py::dict plain;
      const py::list pairs = owned(PySequence_List(object.attr("items")().ptr()));
      for (py::handle pair : pairs) {
        const py::tuple kv = owned(PySequence_Tuple(pair.ptr()));
        if (kv.size() != 2) throw Refused{"the items() of a " + type_name(value) + " gave a non-pair"};
        if (PyDict_SetItem(plain.ptr(), kv[0].ptr(), kv[1].ptr()) != 0) {  // an unhashable key
          const py::error_already_set error;
          throw Refused{py::str(error.value()).cast<std::string>()};
        }
      }
      return dict(plain.ptr(), depth + 1);
    }
    if (py::isinstance(object, sequence_type) && !PyBytes_Check(value) && !PyByteArray_Check(value)) {
      enter(depth + 1);
      const std::size_t slot = tape.open_array();
      std::size_t members = 0;
      for (py::handle item : object) {
        convert(item.ptr(), depth + 1);
        ++members;
      }
      return tape.close(slot, members);
    }
    throw Refused{"Object of type " + std::string(py::type::handle_of(object).attr("__name__").cast<std::string>()) +
                  " is not JSON serializable"};
  }
};

}  // namespace

void tape_from_python(py::handle value, const std::string& what, JsonTape& tape) {
  tape.clear();
  Converter converter{false, tape, {}};
  try {
    converter.convert(value.ptr(), 0);
    if (converter.non_string_key) {
      throw Refused{"it does not survive a JSON round trip unchanged (a non-string key?)"};
    }
  } catch (const Refused& refused) {
    throw ConformanceError(what + " is not strict JSON: " + refused.reason);
  }
}

JsonTape tape_from_python(py::handle value, const std::string& what) {
  JsonTape tape;
  tape_from_python(value, what, tape);
  return tape;
}

json json_from_python(py::handle value, const std::string& what) { return tape_from_python(value, what).to_json(); }

}  // namespace nnx::python
