"""Reading an uploaded batch CSV (SPEC §3: Street Address, City, State, Zip, Country) into
address rows, or a clear message that says what is wrong with the file.

The file is read as it arrives, in pieces of bytes (`BatchCsvReader.feed`), so no file is ever
held whole: a piece is decoded, checked and split into rows, and only a row still open at the
piece's end (an unfinished line, or a quoted value that goes on past it) waits for the next."""

from __future__ import annotations

import codecs
import csv
import io
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from domain.us_states import STATE_NAMES, state_code

REQUIRED_COLUMNS = ("Street Address", "City", "State", "Zip")
OPTIONAL_COLUMNS = ("Country",)
DEFAULT_MAX_ROWS = 1_000_000
# 1,000,000 rows of a portfolio with a few columns of its own (~150-300 bytes a row), with room.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
# One row (or one line) of an address file is a few hundred characters; a "row" larger than this
# is a wrong file or an unclosed quote, and waiting for its end would hold the file in memory.
MAX_ROW_CHARS = 1024 * 1024
MB = 1024 * 1024
# C0 control characters but tab and the line breaks: refused in an upload as the edge refuses them
# in any other text (entrypoints/http/control_characters.py). Kept, an ESC or a BEL would reach every
# export, and a terminal or a spreadsheet that shows it. Found in the bytes (UTF-8 and Latin-1 write
# them as themselves): translating bytes is many times faster than a search of the decoded text.
_CONTROL_BYTES = bytes(code for code in range(0x20) if code not in b"\t\n\r")
_CONTROLS_AS_NUL = bytes.maketrans(_CONTROL_BYTES, bytes(len(_CONTROL_BYTES)))


class UploadError(ValueError):
    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.too_large = too_large


@dataclass(frozen=True, slots=True)
class UploadCaps:
    """What one upload may hold; None: no cap (a chunk of a file already accepted)."""

    max_rows: int | None = DEFAULT_MAX_ROWS
    max_bytes: int | None = DEFAULT_MAX_BYTES


UNCAPPED = UploadCaps(max_rows=None, max_bytes=None)


def readable_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < MB:
        return f"{size / 1024:,.1f} kB"
    return f"{size / MB:,.1f} MB"


def file_too_large(max_bytes: int) -> UploadError:
    return UploadError(f"The file is larger than {readable_size(max_bytes)}. Split it and upload the parts.",
                       too_large=True)


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
    # Why the row cannot be located whatever the data says (see zip_problem): it is answered
    # "not located" with this message, and a public API batch does not charge it.
    problem: str | None = None
    # Every column of the upload (its header's names, the same tuple for every row of a file) and
    # the row's values as they came, address columns included: the export gives them all back.
    columns: tuple[str, ...] = ()
    values: tuple[str, ...] = ()

    @property
    def one_line(self) -> str:
        return f"{self.street}, {self.city}, {self.state} {self.zip}".strip(" ,")


class CsvRow(NamedTuple):  # a tuple: a million of them are made per upload
    """An address row as read: its values, the file line it ends on, and its text as uploaded
    (with any blank lines just before it, so consecutive rows' texts are the file's lines)."""

    first_line: int  # file line where `text` starts
    line: int
    values: list[str]
    text: str


class TextDecoder:
    """A CSV's bytes as text, piece by piece: UTF-8 (a BOM at the start dropped) until a byte that
    is not UTF-8, then Latin-1 from that byte on (common from spreadsheets). A file wholly in one
    of them reads as before, when it was decoded whole; a file that is UTF-8 first and Latin-1 after
    keeps both parts' characters (a whole-file decode read it all as Latin-1). Binary is refused:
    no text CSV has a NUL, and one would be copied into the export and refused by PostgreSQL; so
    is any other control character but tab and the line breaks."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self._max_bytes = max_bytes
        self.bytes_read = 0
        self._undecoded = b""  # the start of a UTF-8 character cut by the piece's end
        self._latin1 = False
        self._at_start = True
        self._lines = 0  # line breaks decoded so far, for a control character's line number

    def decode(self, data: bytes, final: bool = False) -> str:
        self.bytes_read += len(data)
        if self._max_bytes is not None and self.bytes_read > self._max_bytes:
            raise file_too_large(self._max_bytes)
        data = self._undecoded + data if self._undecoded else bytes(data)
        # The undecoded rest of the last piece is part of a UTF-8 character: no line break, no control.
        _refuse_control_characters(data, self._lines)
        if self._latin1:
            text, self._undecoded = data.decode("latin-1"), b""
        else:
            try:
                text, used = codecs.utf_8_decode(data, "strict", final)
            except UnicodeDecodeError as error:
                text, used = data[: error.start].decode("utf-8") + data[error.start :].decode("latin-1"), len(data)
                self._latin1 = True
            self._undecoded = data[used:]
        if self._at_start and text:
            self._at_start = False
            text = text.removeprefix("\ufeff")
        self._lines += text.count("\n")
        return text


def _refuse_control_characters(data: bytes, lines_before: int) -> None:
    """An UploadError naming the line of the first control character in `data`, if any; a NUL
    anywhere says the file is binary (a spreadsheet or an archive renamed .csv)."""
    found = data.translate(_CONTROLS_AS_NUL).find(0)
    if found == -1:
        return
    nul = data.find(0)
    at = nul if nul != -1 else found
    line = lines_before + data.count(b"\n", 0, at) + 1
    if nul != -1:
        raise UploadError(
            f"This file is not a text CSV: line {line:,} contains binary data (a NUL byte). "
            "Export it as CSV (UTF-8) and try again."
        )
    raise UploadError(
        f"Line {line:,} contains a control character (U+{data[at]:04X}). Remove it and try again."
    )


class BatchCsvReader:
    """A batch CSV read as it arrives: `feed` each piece of bytes, then `finish`. Each returns the
    piece as text (to store) and the address rows completed by it; an UploadError comes with the
    piece that shows what is wrong. Lines are split as the csv module splits a file opened with
    newline='' (a quoted value may span lines), so rows and line numbers are those of a whole-file
    read; a piece's last, unfinished row waits for the next piece (at most MAX_ROW_CHARS)."""

    def __init__(self, filename: str, caps: UploadCaps = UploadCaps()) -> None:
        if not filename.lower().endswith(".csv"):
            raise UploadError("Only .csv files are accepted.")
        self._decoder = TextDecoder(caps.max_bytes)
        self._max_rows = caps.max_rows
        self._unended = ""  # the text after the last line break
        self._waiting: list[str] = []  # ended lines of a row that goes on past them (an open quote)
        self._lines_before = 0  # file lines before `_waiting`
        self._skipped = ""  # blank lines since the last row, kept with the next row's text
        self._skipped_from = 0  # the first of their lines
        self._any_text = False  # anything but whitespace seen
        self._blank_header = False
        self.header: list[str] | None = None
        self.header_text = ""
        self._columns: dict[str, int] = {}
        self._extra: list[int] = []
        self._column_names: tuple[str, ...] = ()
        self.row_count = 0

    def feed(self, data: bytes) -> tuple[str, list[CsvRow]]:
        text = self._decoder.decode(data)
        return text, self._read(text, final=False)

    def finish(self) -> tuple[str, list[CsvRow]]:
        text = self._decoder.decode(b"", final=True)
        rows = self._read(text, final=True)
        if not self._any_text:
            raise UploadError(
                "The file is empty. It needs a header row (Street Address, City, State, Zip, Country) and one address per row."
            )
        if self._blank_header:
            raise _not_a_header()
        if self.row_count == 0:
            raise UploadError("The file has a header row but no address rows.")
        return text, rows

    @property
    def bytes_read(self) -> int:
        return self._decoder.bytes_read

    def _read(self, text: str, final: bool) -> list[CsvRow]:
        if not self._any_text and text and not text.isspace():
            self._any_text = True
        whole = self._unended + text if self._unended else text
        if final:
            end = len(whole)
        else:
            # A CR at the very end may be the first half of a CRLF.
            search_end = len(whole) - 1 if whole.endswith("\r") else len(whole)
            end = max(whole.rfind("\n", 0, search_end), whole.rfind("\r", 0, search_end)) + 1
        self._unended = whole[end:]
        if len(self._unended) > MAX_ROW_CHARS:
            raise UploadError(
                f"Line {self._lines_before + len(self._waiting) + 1:,} is longer than {MAX_ROW_CHARS:,} characters "
                "without a line break: this is not an address CSV."
            )
        if end:
            self._waiting.extend(io.StringIO(whole[:end] if end < len(whole) else whole, newline=""))
        rows = self._rows(final)
        if sum(map(len, self._waiting)) > MAX_ROW_CHARS:
            raise UploadError(
                f"Line {self._lines_before + 1:,} opens a quoted value that does not close within "
                f"{MAX_ROW_CHARS:,} characters: check the quotes (\") on that line."
            )
        return rows

    def _rows(self, final: bool) -> list[CsvRow]:
        lines = self._waiting
        if not lines:
            return []
        # Past what has arrived comes one more line: a row that takes it is still open, and waits.
        reader = csv.reader(lines if final else itertools.chain(lines, ("\n",)))
        rows: list[CsvRow] = []
        taken = 0  # lines of complete rows
        arrived, before = len(lines), self._lines_before
        width = len(self.header) if self.header is not None else -1
        try:
            while taken < arrived:
                values = next(reader)
                end = reader.line_num
                if end > arrived:
                    break
                # The usual row (one line, its first value not blank, nothing skipped, under the
                # cap) in short; anything else through `_row`.
                if (len(values) == width and end == taken + 1 and values[0] and not values[0].isspace()
                        and not self._skipped and (self._max_rows is None or self.row_count < self._max_rows)):
                    self.row_count += 1
                    rows.append(CsvRow(before + end, before + end, values, lines[taken]))
                    taken = end
                    continue
                start, taken = taken, end
                text = lines[start] if taken - start == 1 else "".join(lines[start:taken])
                if row := self._row(values, before + start + 1, before + taken, text):
                    rows.append(row)
                width = len(self.header) if self.header is not None else -1
        except csv.Error as error:
            line = self._lines_before + reader.line_num
            if self.header is None:
                raise UploadError(f"The file could not be read as CSV: {error}.") from error
            raise UploadError(f"Line {line} could not be read as CSV: {error}.") from error
        del lines[:taken]
        self._lines_before += taken
        return rows

    def _row(self, values: list[str], first_line: int, line: int, text: str) -> CsvRow | None:
        blank = not any(cell.strip() for cell in values)
        if self.header is None:
            if not blank and not self._blank_header:
                self._columns = _columns(values)
                self._extra = [index for index in range(len(values)) if index not in self._columns.values()]
                self.header, self.header_text = values, text
                self._column_names = tuple(name.strip() for name in values)
                return None
            # A blank first row: the file is empty if nothing but whitespace ever comes.
            if self._any_text:
                raise _not_a_header()
            self._blank_header = True
            return None
        if blank:
            if not self._skipped:
                self._skipped_from = first_line
            self._skipped += text  # blank lines are skipped wherever they fall
            return None
        if len(values) != len(self.header):
            raise UploadError(f"Line {line} has {len(values)} values but the header has {len(self.header)} columns.")
        if self._max_rows is not None and self.row_count >= self._max_rows:
            raise UploadError(
                f"The file has more than {self._max_rows:,} address rows. Split it and upload the parts.", too_large=True
            )
        self.row_count += 1
        if self._skipped:
            first_line, text, self._skipped = self._skipped_from, self._skipped + text, ""
        return CsvRow(first_line, line, values, text)

    def address(self, row: CsvRow) -> AddressRow:
        header = self.header or []
        values = {name: row.values[index].strip() for name, index in self._columns.items()}
        problem = zip_problem(values["Zip"], values["State"])
        zip_code, zip_note = (values["Zip"], None) if problem else repaired_zip(values["Zip"])
        return AddressRow(
            line=row.line,
            street=values["Street Address"],
            city=values["City"],
            state=values["State"],
            zip=zip_code,
            country=values.get("Country", "") or "US",
            extra=tuple((header[index].strip(), row.values[index]) for index in self._extra),
            zip_note=zip_note,
            problem=problem,
            columns=self._column_names,
            values=tuple(row.values),
        )


def read_batch_csv(filename: str, content: bytes, caps: UploadCaps = UploadCaps()) -> list[AddressRow]:
    return list(iter_batch_csv(filename, content, caps))


def iter_batch_csv(filename: str, content: bytes, caps: UploadCaps = UploadCaps()) -> Iterator[AddressRow]:
    """A file at hand (a chunk, a test's file): its rows one at a time, so a caller can pause
    between them; an UploadError comes when the row that causes it is reached."""
    reader = BatchCsvReader(filename, caps)
    for piece in (content, None):
        _, rows = reader.feed(piece) if piece is not None else reader.finish()
        yield from map(reader.address, rows)


def _not_a_header() -> UploadError:
    return UploadError("The first row must be a header: Street Address, City, State, Zip, Country.")


def repaired_zip(zip_code: str) -> tuple[str, str | None]:
    """A 4-digit ZIP is a 5-digit one whose leading zero a spreadsheet dropped (New England, New
    Jersey, Puerto Rico: 01001-09999); it is read with the zero back, and said so."""
    digits = zip_code.strip()
    if len(digits) == 4 and digits.isdigit():
        return "0" + digits, (
            f"ZIP code {digits} was read as 0{digits}: a spreadsheet probably dropped its leading zero."
        )
    return zip_code, None


# The digits the ZIP codes of each state, the District and each territory begin with (domain/us_states.py
# has their names). USPS gives each a range of 3-digit prefixes; a few reach past their region's first
# digit: New York's 005 and 063, Texas' 885, the District's 569.
ZIP_FIRST_DIGITS: dict[str, str] = {
    "AL": "3", "AK": "9", "AZ": "8", "AR": "7", "CA": "9", "CO": "8", "CT": "0", "DE": "1", "DC": "25", "FL": "3",
    "GA": "3", "HI": "9", "ID": "8", "IL": "6", "IN": "4", "IA": "5", "KS": "6", "KY": "4", "LA": "7", "ME": "0",
    "MD": "2", "MA": "0", "MI": "4", "MN": "5", "MS": "3", "MO": "6", "MT": "5", "NE": "6", "NV": "8", "NH": "0",
    "NJ": "0", "NM": "8", "NY": "01", "NC": "2", "ND": "5", "OH": "4", "OK": "7", "OR": "9", "PA": "1", "RI": "0",
    "SC": "2", "SD": "5", "TN": "3", "TX": "78", "UT": "8", "VT": "0", "VA": "2", "WA": "9", "WV": "2", "WI": "5",
    "WY": "8", "PR": "0", "VI": "0", "GU": "9", "AS": "9", "MP": "9",
}


def zip_problem(zip_code: str, state: str) -> str | None:
    """Why a row's ZIP cannot be read, whatever the reference data holds: 4 digits where the state's
    ZIP codes never begin with 0, so a digit is missing, not a leading zero a spreadsheet dropped
    (repaired_zip); None otherwise, the lookup judging the rest."""
    digits, code = zip_code.strip(), state_code(state)
    if len(digits) != 4 or not digits.isdigit() or code is None or "0" in ZIP_FIRST_DIGITS.get(code, "0"):
        return None
    name, begins = STATE_NAMES[code], " or ".join(ZIP_FIRST_DIGITS[code])
    return (
        f"ZIP code {digits} has 4 digits, and {name}'s ZIP codes have 5 beginning with {begins}: a digit is "
        "missing, so the address was not located. Correct the ZIP code and try again."
    )


def _columns(header: list[str]) -> dict[str, int]:
    """Header names matched ignoring case and surrounding spaces."""
    normalized = [cell.strip().lower() for cell in header]
    if not any(normalized):
        raise _not_a_header()
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


# The row of a submitted address in its export: its line in the batch written as a CSV, the header
# being line 1, as an uploaded file's rows are numbered; so `row` is always address_index + 2.
FIRST_ROW = 2
RESERVED_FIELDS = frozenset(name.lower() for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, INDEX_COLUMN))
MAX_OWN_FIELDS = 20


@dataclass(frozen=True, slots=True)
class SubmittedAddress:
    """An address a program sent (POST /api/v1/search/batch), already split into its parts, with
    the program's own fields (a policy number...) that its export gives back, as an upload's own
    columns are."""

    address: str
    city: str
    state: str
    zip: str
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def problem(self) -> str | None:
        """Why the address cannot be located, by the rules of an uploaded row (zip_problem)."""
        return zip_problem(self.zip, self.state)


def own_field_problem(name: str) -> str | None:
    """Why a program's own field name cannot be a column of its export; None when it can."""
    if not name.strip() or name != name.strip():
        return f"Own field name {name[:64]!r} must not be empty nor begin or end with a space."
    if name.lower() in RESERVED_FIELDS:
        return f"Own field name {name!r} is one of the batch's own columns: name it otherwise (e.g. my_{name})."
    return None


def submitted_csv(addresses: Iterable[SubmittedAddress]) -> str:
    """Submitted addresses as a batch CSV, so they are read and answered exactly as an upload is:
    a state's name is read as its code, and the programs' own fields are columns after address_index
    (every name any address has, in the order first seen; empty where an address has none)."""
    addresses = list(addresses)
    own = list(dict.fromkeys(name for row in addresses for name, _ in row.fields))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, INDEX_COLUMN, *own])
    for index, row in enumerate(addresses):
        values = dict(row.fields)
        state = state_code(row.state) or row.state.strip()
        writer.writerow([row.address.strip(), row.city.strip(), state, row.zip.strip(), "US", str(index),
                         *(values.get(name, "") for name in own)])
    return buffer.getvalue()
