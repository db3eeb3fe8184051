"""The analysis' stores on the build's one connection: what they hold becomes the analysis' ``Known``,
and what the analysis ``Found`` is written back to them."""

from __future__ import annotations

from dataclasses import dataclass

from generator.analysis.analyse import Found, Known
from generator.analysis.keywords import NewEntries
from generator.cache.candidates import CandidateStore
from generator.cache.database import CacheDatabase
from generator.cache.fit import FitStore
from generator.cache.layouts import LayoutStore
from generator.cache.neighbours import NeighbourStore
from generator.cache.similarities import SimilarityStore


@dataclass(frozen=True)
class AnalysisStores:
    """Every store an analysis of ``papers`` papers with the model ``model_name`` reads and writes."""

    candidates: CandidateStore
    similarities: SimilarityStore
    fit: FitStore
    neighbours: NeighbourStore
    layouts: LayoutStore

    @classmethod
    def on(cls, database: CacheDatabase | None, model_name: str, papers: int) -> AnalysisStores:
        return cls(
            CandidateStore(database),
            SimilarityStore(database),
            FitStore(database, model_name),
            NeighbourStore(database, model_name),
            LayoutStore(database, papers),
        )

    def known(self, refit: bool = False) -> Known:
        """What the stores hold, read as the analysis asks for it; ``refit`` gives no fit."""
        return Known(
            candidates=self.candidates.known(),
            similarities=self.similarities.known(),
            fit=None if refit else self.fit.load(),
            neighbours=self.neighbours.known(),
            layouts=self.layouts.known(),
        )

    def keep_steps(self, found: Found) -> None:
        """Store what the analysis found before the map (candidates, similarities, neighbour lists),
        then let ``found`` drop them: the build holds it to the end (for the fit and map), and they
        grow with the digest (a cold build's candidates are every abstract's)."""
        self.candidates.save(found.candidates)
        self.similarities.save(found.similarities)
        if found.neighbours is not None:
            self.neighbours.save(*found.neighbours)
        found.candidates, found.similarities, found.neighbours = NewEntries(), NewEntries(), None

    def keep_map(self, found: Found) -> None:
        """Store what the finished map brought: a fresh fit, a fresh t-SNE layout."""
        if found.fit is not None:
            self.fit.save(found.fit)
        if found.layout is not None:
            self.layouts.save(*found.layout)
