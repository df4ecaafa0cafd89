// The names a Python file binds, read without running it (profile/python_names.h): every binding form Python
// has is seen, a name only read, commented or quoted is not, and a file that may bind names dynamically says
// so; then the nearest-name rule (base/nearest_name.h) that answers a mistyped key, dtype or factory.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/nearest_name.h"
#include "profile/python_names.h"

namespace nnx {
namespace {

bool binds(const std::string& source, const std::string& name) {
  const PythonNames names = names_bound_in(source);
  return std::find(names.bound.begin(), names.bound.end(), name) != names.bound.end();
}

TEST(PythonNames, EveryBindingFormBindsItsName) {
  EXPECT_TRUE(binds("def make():\n    return 1\n", "make"));
  EXPECT_TRUE(binds("async def make(): pass\n", "make"));
  EXPECT_TRUE(binds("class Net(torch.nn.Module):\n    pass\n", "Net"));
  EXPECT_TRUE(binds("make = functools.partial(build, 3)\n", "make"));
  EXPECT_TRUE(binds("make: Callable = build\n", "make"));
  EXPECT_TRUE(binds("a, (make, b) = 1, (2, 3)\n", "make"));
  EXPECT_TRUE(binds("x = make = build\n", "make"));
  EXPECT_TRUE(binds("if (make := build):\n    pass\n", "make"));
  EXPECT_TRUE(binds("import make\n", "make"));
  EXPECT_TRUE(binds("import torchvision.models\n", "torchvision"));
  EXPECT_TRUE(binds("import zoo as make\n", "make"));
  EXPECT_TRUE(binds("from zoo import (\n    resnet18,\n    make,\n)\n", "make"));
  EXPECT_TRUE(binds("from zoo import resnet18 as make\n", "make"));
  EXPECT_TRUE(binds("try:\n    import a\nexcept ImportError as make:\n    pass\n", "make"));
  EXPECT_TRUE(binds("with open(p) as make: pass\n", "make"));
  EXPECT_TRUE(binds("for i, make in enumerate(x): pass\n", "make"));
  EXPECT_TRUE(binds("x = 1; make = 2\n", "make"));
  EXPECT_TRUE(binds("x = (1 +\n     2); make = \\\n  3\n", "make"));
}

TEST(PythonNames, ANameOnlyReadCommentedQuotedOrAnAttributeIsNotBound) {
  const std::string source =
      "# def make(): a comment\n"
      "'''def make(): a docstring\nmake = 1\n'''\n"
      "text = \"make = 2\" + f'{make}' + r'make = 3'\n"
      "print(make)\n"
      "build(make=3)\n"
      "holder.make = 4\n"
      "table[make] = 5\n"
      "if make == 6: pass\n";
  const PythonNames names = names_bound_in(source);
  EXPECT_FALSE(binds(source, "make"));
  EXPECT_TRUE(binds(source, "text"));
  EXPECT_FALSE(names.dynamic);
}

TEST(PythonNames, AFileThatMayBindNamesUnseenSaysSo) {
  EXPECT_TRUE(names_bound_in("from zoo import *\n").dynamic);
  EXPECT_TRUE(names_bound_in("globals()['make'] = build\n").dynamic);
  EXPECT_TRUE(names_bound_in("setattr(sys.modules[__name__], 'make', build)\n").dynamic);
  EXPECT_TRUE(names_bound_in("def __getattr__(name):\n    return build\n").dynamic);
  EXPECT_FALSE(names_bound_in("def make():\n    return build()\n").dynamic);
}

TEST(NearestName, ATypoGetsTheKnownNameNearItAndAnUnrelatedWordNone) {
  const std::vector<std::string> keys = {"name", "exporter", "module", "inputs", "dims", "tolerances", "rtol"};
  EXPECT_EQ(nearest_name("dim", keys), "dims");
  EXPECT_EQ(nearest_name("tolerance", keys), "tolerances");
  EXPECT_EQ(nearest_name("exproter", keys), "exporter");  // two neighbours swapped: one edit
  EXPECT_EQ(nearest_name("colour", keys), std::nullopt);
  EXPECT_EQ(nearest_name("xy", {"x"}), std::nullopt);     // one edit is half of two letters: too far
  EXPECT_EQ(did_you_mean("flaot32", {"float32", "float64"}), "; did you mean \"float32\"?");
  EXPECT_EQ(did_you_mean("colour", keys), "");
}

}  // namespace
}  // namespace nnx
