"""Type stubs of the native module; hpvm/__init__.py is the public API."""
from typing import Any, Mapping, Sequence

class Error(RuntimeError): ...
class CompileError(Error): ...

class DeviceFallbackWarning(RuntimeWarning):
    """A launch ran a node on a device other than the ones asked for."""

class LaunchError(Error):
    code: int
    """The hpvm_status of the failed launch (docs/runtime.md)."""

TARGET_CPU: int
TARGET_NVPTX: int
TARGET_SPIRV: int

class Graph:
    """A dataflow graph of a program."""
    @property
    def name(self) -> str: ...
    @property
    def params(self) -> list[dict[str, str]]:
        """The root's parameters: name, kind ("buffer"/"value"), type and,
        for buffers, access ("in"/"out"/"inout")."""
    def to_dot(self) -> str:
        """The graph in Graphviz DOT."""
    def __str__(self) -> str: ...

class Function:
    """A C function of a compiled program."""
    @property
    def name(self) -> str: ...
    @property
    def signature(self) -> str: ...
    @property
    def params(self) -> list[tuple[str, str]]:
        """(name, C type) of each parameter."""
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the function: C-contiguous buffers of the pointee's type for
        pointers (None for NULL), numbers for scalars. Raises TypeError,
        ValueError or OverflowError for bad arguments and LaunchError when
        a launch fails. Releases the GIL while it runs."""

class CProgram:
    """C source compiled and loaded into this process."""
    @property
    def functions(self) -> Mapping[str, Function]: ...
    @property
    def uncallable(self) -> list[str]: ...
    @property
    def graphs(self) -> list[Graph]: ...
    @property
    def graph_text(self) -> str:
        """The graphs as hpvm-rt reads them (docs/runtime.md)."""
    def launch(self, graph: str, args: Sequence[Any],
               pointees: Sequence[str] = ...) -> None:
        """Launches a graph with its root's arguments in order; pointees
        optionally names each buffer's element type to check."""

def compile_c(source: str, name: str, flags: list[str], targets: int,
              cache_dir: str = ...) -> CProgram: ...
def compile_ir(ir: str, name: str, targets: int,
               functions: Sequence[tuple[str, str, Sequence[tuple[str, str, bool, bool]]]]
               ) -> CProgram:
    """Compiles LLVM IR text in the marker form (what hpvm.kernel emits)."""
def compile_graph(ir: str, graph_text: str, name: str, targets: int) -> CProgram:
    """Compiles a graph-form module (leaf functions, graphs as text or in
    the IR)."""
def verify_graph_text(text: str) -> list[tuple[str, str, str]]:
    """(rule, node, message) of each broken rule."""
def dot_from_text(text: str) -> str: ...
def set_launch_options(devices: list[str], scheduler: str, strict: bool) -> None: ...
def clear_launch_options() -> None: ...
def launch_options() -> tuple[list[str], str, bool] | None: ...
def stats_rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]: ...
def stats_reset() -> None: ...
def trace_start() -> tuple[bool, int]: ...
def trace_stop(was_on: bool) -> str: ...
def devices() -> list[dict[str, str]]:
    """The devices hpvm-rt uses, every kind discovered."""
def stats_text() -> str:
    """What HPVM_STATS=1 prints at exit, so far."""
