"""Programs compiled into this process: their C functions and graphs."""


class Program:
    """A program compiled and loaded into this process: C source
    (compile_c, load_c) or a graph-form module (load_ll).

    Its C functions are attributes (``prog.saxpy(n, a, x, y)``) and items
    of ``functions``; calling one runs the host code, whose parallel
    regions launch through hpvm-rt on the devices it chooses. ``graphs``
    are the dataflow graphs; ``launch`` runs one directly.
    """

    def __init__(self, native):
        self._native = native
        self.functions = native.functions
        self.graphs = native.graphs

    @property
    def from_cache(self):
        """Whether the compiled code came from the on-disk cache."""
        return self._native.from_cache

    @property
    def uncallable(self):
        """External functions the binding cannot call, each with why."""
        return self._native.uncallable

    def graph(self, name):
        """The graph called name."""
        for g in self.graphs:
            if g.name == name:
                return g
        raise KeyError(f"no graph {name!r} (graphs: "
                       f"{', '.join(g.name for g in self.graphs) or 'none'})")

    def launch(self, name, *args):
        """Runs graph name with its root's parameters in order (arrays for
        buffers, byte sizes included: each is checked against the array it
        describes)."""
        self.graph(name)
        self._native.launch(name, list(args))

    def stream(self, name, capacity=4):
        """A stream of graph name (docs/python.md, "Streams"): each
        ``push(*args)`` is a frame, the graph's top-level nodes its pipeline
        stages, and ``pop()`` returns the frames' numbers in order. At most
        ``capacity`` frames are pushed and not popped: a push waits for a
        pop (from another thread) beyond that."""
        self.graph(name)
        return Stream(self._native.stream(name, int(capacity)), name)

    def __getattr__(self, name):
        # Only called for names that are not attributes already.
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.functions:
            return self.functions[name]
        for entry in self._native.uncallable:
            if entry.startswith(name + ": "):
                raise AttributeError(f"{name} cannot be called from Python: "
                                     f"{entry[len(name) + 2:]}")
        raise AttributeError(
            f"the program has no function {name!r} "
            f"(functions: {', '.join(self.functions) or 'none'})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self):
        return (f"<hpvm.Program functions=[{', '.join(self.functions)}] "
                f"graphs=[{', '.join(g.name for g in self.graphs)}]>")


class Stream:
    """A graph run once per frame; see Program.stream. A frame's arrays
    belong to the stream, and must not change, until the frame is popped.
    Usable as a context manager (closing it cancels what has not started)
    and as an iterator over the frames' numbers until the stream ends."""

    def __init__(self, native, name):
        self._native = native
        self.name = name

    def push(self, *args):
        """Adds a frame with the graph's root parameters in order."""
        self._native.push(list(args))

    def pop(self):
        """The oldest frame's number once it has run (its arrays then hold
        its results), or None once ``end`` was called and every frame is
        popped. A frame that failed raises LaunchError; later frames still
        run."""
        return self._native.pop()

    def end(self):
        """No frame follows: pop returns None after the last one."""
        self._native.end()

    def cancel(self):
        """Drops the frames no stage has started (their pops raise
        LaunchError with code HPVM_ERR_CANCELLED) and ends the stream."""
        self._native.cancel()

    def close(self):
        """Cancels, waits for the frames still running, frees the stream."""
        self._native.close()

    def __iter__(self):
        while (frame := self.pop()) is not None:
            yield frame

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"<hpvm.Stream of graph {self.name!r}>"
