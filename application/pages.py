"""Pages of a listing, newest first, by offset: the public API's history, webhook deliveries and
exports page alike. A store is asked for one item more than the page holds: its presence says
another page follows, and where it starts (`next_offset`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
MAX_OFFSET = 1_000_000  # far past any listing's end; a larger offset is a mistake, refused (400)


@dataclass(frozen=True, slots=True)
class PageRequest:
    offset: int = 0  # items to skip, newest first
    limit: int = 50  # items on the page

    @property
    def fetch(self) -> int:
        """How many to ask a store for: the page and one more."""
        return self.limit + 1


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    offset: int
    next_offset: int | None  # None: this is the last page


def page_of(fetched: list[T], request: PageRequest) -> Page[T]:
    """The page from what a store gave for `request.fetch` items from `request.offset` on."""
    more = len(fetched) > request.limit
    return Page(fetched[: request.limit], request.offset, request.offset + request.limit if more else None)
