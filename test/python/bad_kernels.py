"""Python kernels outside the kernel language, one mistake each; the tests
check that each is a KernelError naming this file, the line and the
construct. BAD_LINES maps each kernel to the line the error is on."""
import numpy as np

import hpvm
from hpvm import In, InOut, Out, f32, i64

NOT_A_NUMBER = "text"


@hpvm.kernel
def list_comprehension(x: In[f32], y: Out[f32]):
    for i in hpvm.parallel(len(x)):
        y[i] = sum([x[i] for _ in range(3)])  # BAD: a list comprehension


@hpvm.kernel
def writes_input(x: In[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = 0.0  # BAD: write to an input


@hpvm.kernel
def truncating_assignment(x: In[f32], y: Out[i64]):
    for i in hpvm.parallel(len(x)):
        s = 0
        s = s + x[i]  # BAD: float to integer assignment
        y[i] = s


@hpvm.kernel
def missing_annotation(x, y: Out[f32]):  # BAD: parameter
    for i in hpvm.parallel(len(y)):
        y[i] = 0.0


@hpvm.kernel
def nested_parallel(x: Out[f32, 2]):
    for i in hpvm.parallel(x.shape[0]):
        for j in hpvm.parallel(x.shape[1]):  # BAD: nested hpvm.parallel
            x[i, j] = 0.0


@hpvm.kernel
def break_out_of_parallel(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = 1.0
        break  # BAD: break


@hpvm.kernel
def calls_print(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        print(i)  # BAD: call


@hpvm.kernel
def writes_shared_variable(x: In[f32], n: i64):
    total = 0.0
    for i in hpvm.parallel(len(x)):
        total = total + x[i]  # BAD: write to a shared variable


@hpvm.kernel
def no_parallel_loop(x: Out[f32]):  # BAD: kernel
    x_len = 3


@hpvm.kernel
def uses_a_string(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = NOT_A_NUMBER  # BAD: outside value


@hpvm.kernel
def try_statement(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        try:  # BAD: a 'try' statement
            x[i] = 1.0
        except ValueError:
            pass


@hpvm.kernel
def wrong_index_count(x: Out[f32, 2]):
    for i in hpvm.parallel(x.shape[0]):
        x[i] = 1.0  # BAD: index count


@hpvm.kernel
def float_index(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[i / 2] = 1.0  # BAD: None


@hpvm.kernel
def slice_of_array(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[1:3] = 1.0  # BAD: a slice


@hpvm.kernel
def top_level_loop(x: Out[f32]):
    for k in range(3):  # BAD: top-level control flow
        pass
    for i in hpvm.parallel(len(x)):
        x[i] = 1.0


@hpvm.kernel
def returns_value(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = 1.0
    return x  # BAD: 'return'


@hpvm.kernel
def undefined_name(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        x[i] = undefined_thing  # BAD: undefined name  # noqa: F821


@hpvm.kernel
def assigns_instance_id(x: Out[f32]):
    for i in hpvm.parallel(len(x)):
        i = 3  # BAD: instance id
        x[i] = 1.0


@hpvm.kernel
def atomic_on_input(x: In[f32], y: Out[f32]):
    for i in hpvm.parallel(len(x)):
        hpvm.atomic_add(x, i, 1.0)  # BAD: write to an input
        y[i] = x[i]


@hpvm.kernel
def maybe_unassigned(x: In[f32], y: Out[f32]):
    for i in hpvm.parallel(len(x)):
        if x[i] > 0:
            t = x[i]
        y[i] = t  # BAD: possibly unassigned variable


@hpvm.kernel
def loop_variable_after_the_loop(x: Out[f32], n: i64):
    for i in hpvm.parallel(len(x)):
        for k in range(n):
            x[i] = 0.0
        x[i] = k  # BAD: possibly unassigned variable


def bad_lines():
    """{kernel name: (line, construct)} from the BAD markers above."""
    import inspect
    lines = {}
    current = None
    for number, text in enumerate(inspect.getsource(
            inspect.getmodule(bad_lines)).splitlines(), 1):
        if text.startswith("def "):
            current = text[4:text.index("(")]
            if current == "bad_lines":
                break
        if "# BAD: " in text:
            construct = text.split("# BAD: ")[1].split("  #")[0].strip()
            lines[current] = (number, None if construct == "None"
                              else construct)
    return lines


KERNELS = {name: globals()[name] for name in bad_lines()}
