"""The reference index's place-county shares (adapters/reference_data/memory_index.py): a place
takes its counties from the best source that knows it, whatever the others say; within a source,
a county listed twice keeps its larger share; a source outside the three is not read."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from adapters.db.base import Base
from adapters.db.reference_tables import PlaceCountyRow
from adapters.reference_data.memory_index import ReferenceIndex


def _place(state: str, key: str, county: str, share: float | None, source: str) -> PlaceCountyRow:
    return PlaceCountyRow(state=state, place_key=key, place_name=key.title(), county_fips=county, share=share,
                          source=source)


async def test_each_place_has_the_counties_of_its_best_source(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'places.db'}")
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    async with sessions() as session, session.begin():
        session.add_all([
            # Known to all three: Geocorr's two counties, not the others' one.
            _place("WA", "SEATTLE", "53033", 0.9, "simplemaps_cities"),
            _place("WA", "SEATTLE", "53061", 1.0, "census_places"),
            _place("WA", "SEATTLE", "53033", 0.75, "geocorr2022"),
            _place("WA", "SEATTLE", "53061", 0.25, "geocorr2022"),
            # Known to the Census and SimpleMaps: the Census; its county listed twice keeps the larger share.
            _place("OR", "BEND", "41017", 0.4, "census_places"),
            _place("OR", "BEND", "41017", 0.6, "census_places"),
            _place("OR", "BEND", "41039", 1.0, "simplemaps_cities"),
            # Known to SimpleMaps only; a share unknown counts as 0.
            _place("ID", "BOISE", "16001", None, "simplemaps_cities"),
            # Another source is not read.
            _place("NV", "RENO", "32031", 1.0, "somebody_else"),
        ])
    try:
        data = await ReferenceIndex(sessions).data()
        assert data.place_counties("WA", "SEATTLE") == {"53033": 0.75, "53061": 0.25}
        assert data.place_counties("OR", "BEND") == {"41017": 0.6}
        assert data.place_counties("ID", "BOISE") == {"16001": 0.0}
        assert data.place_counties("NV", "RENO") is None
        assert data.place_counties("WA", "BEND") is None
        assert len(data.place_shares) == 3
    finally:
        await engine.dispose()
