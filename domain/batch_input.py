"""Reading an uploaded batch CSV (SPEC §3: Street Address, City, State, Zip, Country) into
address rows, or a clear message that says what is wrong with the file."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

REQUIRED_COLUMNS = ("Street Address", "City", "State", "Zip")
OPTIONAL_COLUMNS = ("Country",)
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_ROWS = 100_000


class UploadError(ValueError):
    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.too_large = too_large


@dataclass(frozen=True, slots=True)
class AddressRow:
    line: int  # line number in the file, for messages
    street: str
    city: str
    state: str
    zip: str
    country: str
    # The file's other columns (a policy number...), by header, in file order: the detailed export
    # gives them back unchanged.
    extra: tuple[tuple[str, str], ...] = ()
    # A ZIP read differently from how it was written, said in words (see repaired_zip).
    zip_note: str | None = None

    @property
    def one_line(self) -> str:
        return f"{self.street}, {self.city}, {self.state} {self.zip}".strip(" ,")


def decode(content: bytes) -> str:
    """UTF-8 with or without BOM, else Latin-1 (common from spreadsheets); binary is refused.

    The whole file is searched for NUL: no text CSV has one, and one anywhere would be copied
    into the export and refused by PostgreSQL."""
    nul = content.find(b"\x00")
    if nul != -1:
        line = content.count(b"\n", 0, nul) + 1
        raise UploadError(
            f"This file is not a text CSV: line {line:,} contains binary data (a NUL byte). "
            "Export it as CSV (UTF-8) and try again."
        )
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("latin-1")


def read_batch_csv(filename: str, content: bytes) -> list[AddressRow]:
    return list(iter_batch_csv(filename, content))


def iter_batch_csv(filename: str, content: bytes) -> Iterator[AddressRow]:
    """The rows one at a time, so a caller can pause between them (100,000 rows take a second);
    an UploadError comes when the row that causes it is reached."""
    if not filename.lower().endswith(".csv"):
        raise UploadError("Only .csv files are accepted.")
    if len(content) > MAX_UPLOAD_BYTES:
        raise UploadError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB. Split it and upload the parts.", too_large=True)
    text = decode(content)
    if not text.strip():
        raise UploadError("The file is empty. It needs a header row (Street Address, City, State, Zip, Country) and one address per row.")
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = next(reader)
    except csv.Error as error:
        raise UploadError(f"The file could not be read as CSV: {error}.") from error
    columns = _columns(header)
    extra_columns = [index for index in range(len(header)) if index not in columns.values()]
    count = 0
    try:
        for record in reader:
            if not any(cell.strip() for cell in record):
                continue  # blank lines are skipped
            if len(record) != len(header):
                raise UploadError(
                    f"Line {reader.line_num} has {len(record)} values but the header has {len(header)} columns."
                )
            if count >= MAX_ROWS:
                raise UploadError(f"The file has more than {MAX_ROWS:,} address rows. Split it and upload the parts.", too_large=True)
            values = {name: record[index].strip() for name, index in columns.items()}
            count += 1
            zip_code, zip_note = repaired_zip(values["Zip"])
            yield AddressRow(
                line=reader.line_num,
                street=values["Street Address"],
                city=values["City"],
                state=values["State"],
                zip=zip_code,
                country=values.get("Country", "") or "US",
                extra=tuple((header[index].strip(), record[index]) for index in extra_columns),
                zip_note=zip_note,
            )
    except csv.Error as error:
        raise UploadError(f"Line {reader.line_num} could not be read as CSV: {error}.") from error
    if count == 0:
        raise UploadError("The file has a header row but no address rows.")


def repaired_zip(zip_code: str) -> tuple[str, str | None]:
    """A 4-digit ZIP is a 5-digit one whose leading zero a spreadsheet dropped (New England, New
    Jersey, Puerto Rico: 01001-09999); it is read with the zero back, and said so."""
    digits = zip_code.strip()
    if len(digits) == 4 and digits.isdigit():
        return "0" + digits, (
            f"ZIP code {digits} was read as 0{digits}: a spreadsheet probably dropped its leading zero."
        )
    return zip_code, None


def _columns(header: list[str]) -> dict[str, int]:
    """Header names matched ignoring case and surrounding spaces."""
    normalized = [cell.strip().lower() for cell in header]
    if not any(normalized):
        raise UploadError("The first row must be a header: Street Address, City, State, Zip, Country.")
    found: dict[str, int] = {}
    for name in REQUIRED_COLUMNS + OPTIONAL_COLUMNS:
        if name.lower() in normalized:
            found[name] = normalized.index(name.lower())
    missing = [name for name in REQUIRED_COLUMNS if name not in found]
    if missing:
        raise UploadError(f"Missing required column(s): {', '.join(missing)}. The header needs Street Address, City, State, Zip (and optionally Country).")
    return found


# The public API's batches: the position of each address in the request, kept as a column of
# the stored CSV so the detailed export gives it back beside the answer.
INDEX_COLUMN = "address_index"


@dataclass(frozen=True, slots=True)
class SubmittedAddress:
    """An address a program sent (POST /api/v1/search/batch), already split into its parts."""

    address: str
    city: str
    state: str
    zip: str


def submitted_csv(addresses: Iterable[SubmittedAddress]) -> str:
    """Submitted addresses as a batch CSV, so they are read and answered exactly as an upload is."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, INDEX_COLUMN])
    for index, row in enumerate(addresses):
        writer.writerow([row.address.strip(), row.city.strip(), row.state.strip(), row.zip.strip(), "US", str(index)])
    return buffer.getvalue()
