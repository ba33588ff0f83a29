"""The one lifecycle of a recorded run (`RecordedRun`), shared by `measure`, `perf` and `versus`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from ..harness import environment
from ..results.model import Cell, Run
from ..results.store import Store


class RecordedRun:
    """The lifecycle of a recorded run, the one `measure` (and `resume`), `perf` and `versus` share: the store
    opened before anything runs (one that cannot be used is a StoreError now), the run begun or a stopped one
    claimed (`begin`), each finished cell saved as it comes (`sink`), the status settled from how the
    measuring ended, the run finished and loaded (`run`). Use it as a context manager: the store is closed
    whatever happens. What differs between the commands is what they supply: the settings, the exceptions
    that stop a run early and the status each leaves, and when the run is begun (perf: once every snippet
    has compiled).

        with RecordedRun(db, command, settings, planned=len(cells)) as rec:
            rec.begin()
            run = rec.run(lambda: measure_cells(..., rec.sink), {KeyboardInterrupt: "interrupted"})
    """

    def __init__(
        self,
        db: Path | str,
        command: str,
        settings: dict,
        planned: int,
        *,
        baseline: str | None = None,
        on_cell: Callable[[Cell], None] = lambda c: None,
    ):
        self.db = Path(db)
        self.created = not self.db.exists()
        self.store = Store(db)
        self.command, self.settings, self.planned, self.baseline = command, settings, planned, baseline
        self.on_cell = on_cell
        self.run_id: int | None = None
        self.status = "complete"
        self.finished: list[Cell] = []

    def __enter__(self) -> RecordedRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.store.close()

    def begin(self, resume: int | None = None) -> int:
        """Begin the run in the store, or claim the stopped run `resume` to finish it; its id."""
        if resume is not None:
            self.store.claim(resume)
            self.run_id = resume
        else:
            host = {**environment.collect(), "concurrent_runs": self.store.live_runs()}
            self.run_id = self.store.begin_run(
                self.command, self.settings, host, planned=self.planned, baseline=self.baseline
            )
        return self.run_id

    def sink(self, c: Cell) -> None:
        """A finished cell: stored in one transaction, then reported (`on_cell`)."""
        assert self.run_id is not None
        self.store.save_cell(self.run_id, c)
        self.finished.append(c)
        self.on_cell(c)

    def run(
        self,
        work: Callable[[], None],
        stops: Mapping[type[BaseException], str],
        *,
        failed_cells_fail: bool = False,
        finish_on_error: bool = False,
        held: Callable[[], AbstractContextManager] = nullcontext,
        drop_unused: bool = False,
    ) -> Run:
        """Run `work` (it hands each finished cell to `sink`, and begins the run unless it was begun before),
        then finish and load the run. `stops`: the exceptions that end the measuring early and the status
        each leaves (raised again if the run was not yet begun). `failed_cells_fail`: a run whose every cell
        was measured but some failed is "failed". `finish_on_error`: any other exception also finishes the
        run (with the status so far) before it goes on; else the run is left running, for the store to call
        abandoned once this process is gone. `held()`: the context the finishing runs in (perf holds Ctrl-C
        back: a run is finished, not left running). `drop_unused`: a store this call created and left without
        a run is removed."""
        failed = True
        loaded: Run | None = None
        try:
            try:
                work()
            except tuple(stops) as e:
                if self.run_id is None:  # before the run was begun: nothing to keep
                    raise
                self.status = next(status for kind, status in stops.items() if isinstance(e, kind))
            if failed_cells_fail and self.status == "complete":
                if any(c.status not in ("ok", "refused") for c in self.finished):
                    self.status = "failed"
            failed = False
        finally:
            with held():
                if self.run_id is None:
                    self.store.close()  # no run was begun in it
                    if drop_unused and self.created:
                        for f in (self.db, *(Path(f"{self.db}{s}") for s in ("-wal", "-shm", "-journal"))):
                            f.unlink(missing_ok=True)
                elif not failed or finish_on_error:
                    with self.store:
                        self.store.finish_run(self.run_id, self.status)
                        loaded = self.store.load_run(self.run_id)
        assert loaded is not None
        return loaded
