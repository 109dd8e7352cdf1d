"""The detailed export of a batch over HTTP, on SQLite and PostgreSQL: one row per input row in
input order, every column of the upload unchanged, every score and the location, unknown left
empty; formulas neutralised in the spreadsheet formats (CSV, XLSX), the user's values as they came
in JSON Lines and Parquet; numbers as numbers in XLSX and Parquet."""

from __future__ import annotations

import csv
import io
import json

import openpyxl
import pyarrow.parquet as pq
from httpx import AsyncClient

from entrypoints.container import Container
from tests.conftest import sign_up_and_log_in

UPLOAD = (
    "policy_no,Street Address,City,State,Zip,Country,insured_value\n"
    "P-1,701 5th Ave,Seattle,WA,98104,US,2500000\n"
    "=HYPERLINK(\"http://evil.example\"),1 Calle Luna,San Juan,PR,00901,US,100\n"
    "P-3,1 Harvard Ave,Allston,MA,2134,US,300\n"
    "P-4,no number street,Nowhere,ZZ,abc,US,\n"
    "P-1,701 5th Ave,Seattle,WA,98104,US,2500000\n"
)


async def _finished_export(client: AsyncClient, container: Container, headers: dict, upload_text: str = UPLOAD) -> str:
    upload = await client.post("/api/upload-csv", files={"file": ("book.csv", upload_text.encode(), "text/csv")}, headers=headers)
    assert upload.status_code == 200, upload.text
    started = await client.post("/api/batch-jobs", json={"file_id": upload.json()["file_id"]}, headers=headers)
    await container.job_queue().drain()
    job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=headers)).json()["job"]
    assert job["status"] == "done", job
    return job["export_filename"]


async def test_each_format_keeps_the_rows_in_order_with_the_users_columns(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "detail@example.com")
    name = await _finished_export(client, container, user["headers"])

    csv_answer = await client.get(f"/api/exports/{name}/detailed", params={"format": "csv"}, headers=user["headers"])
    assert csv_answer.status_code == 200 and "_detailed.csv" in csv_answer.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(csv_answer.content.decode("utf-8-sig"))))
    assert [r["policy_no"] for r in rows] == ["P-1", "'=HYPERLINK(\"http://evil.example\")", "P-3", "P-4", "P-1"]
    assert [r["row"] for r in rows] == ["2", "3", "4", "5", "6"]
    # Every column of the upload first, the address ones included, unchanged.
    assert list(rows[0])[:8] == ["policy_no", "Street Address", "City", "State", "Zip", "Country", "insured_value", "row"]
    assert [r["Zip"] for r in rows] == ["98104", "00901", "2134", "abc", "98104"]
    seattle, san_juan, allston, unread, repeat = rows
    assert seattle["county_fips"] == "53033" and seattle["ERQK_Score"] and seattle["status"] == "answered"
    assert seattle["match_level"] == "building" and float(seattle["lat"]) > 47 and int(seattle["occupant_count"]) >= 20
    # Puerto Rico has no NRI scores: empty, never 0.
    assert san_juan["county_fips"] == "72127" and san_juan["Total_Score"] == "" and san_juan["HRCN_Score"] == ""
    # FEMA's three kinds of no score stay apart, in FEMA's words (#26, item 1).
    assert (san_juan["ERQK_Rating"], san_juan["AVLN_Rating"]) == ("Insufficient Data", "Not Applicable")
    assert san_juan["county_name"] == "San Juan Municipio" and seattle["county_name"] == "King County"
    # No occupant source covers San Juan: its occupants are unknown (empty), not none (0).
    assert san_juan["occupant_count"] == "" and unread["occupant_count"] == ""
    # A ZIP that lost its leading zero is read back and said so.
    assert allston["county_fips"] == "25025" and "2134 was read as 02134" in allston["message"]
    assert allston["low_confidence"] == "yes"
    assert unread["status"] == "not located" and unread["Total_Score"] == "" and unread["lat"] == ""
    assert repeat == {**seattle, "row": "6"}

    jsonl = await client.get(f"/api/exports/{name}/detailed", params={"format": "jsonl"}, headers=user["headers"])
    records = [json.loads(line) for line in jsonl.text.splitlines()]
    assert jsonl.headers["content-type"].startswith("application/x-ndjson")
    # JSON Lines is no spreadsheet: the user's values as they came.
    assert [r["input"]["policy_no"] for r in records] == ["P-1", '=HYPERLINK("http://evil.example")', "P-3", "P-4", "P-1"]
    assert records[0]["location"]["county_fips"] == "53033" and records[0]["perils"]["ERQK_Score"] is not None
    assert records[0]["address"].startswith("701 5th Ave") and records[1]["Total_Score"] is None

    xlsx = await client.get(f"/api/exports/{name}/detailed", params={"format": "xlsx"}, headers=user["headers"])
    book = openpyxl.load_workbook(io.BytesIO(xlsx.content))
    sheet = book["Rows"]
    header = [cell.value for cell in sheet[1]]
    assert header[:8] == list(rows[0])[:8] and sheet.max_row == 6
    formula_looking = sheet.cell(row=3, column=1)
    assert formula_looking.data_type == "s" and formula_looking.value.startswith("'=")
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref is not None
    insured = sheet.cell(row=2, column=header.index("insured_value") + 1)
    assert insured.value == 2500000 and insured.data_type == "n"  # a TIV is a number
    assert sheet.cell(row=3, column=header.index("Zip") + 1).value == "00901"  # a ZIP code stays text
    assert sheet.cell(row=3, column=header.index("Total_Score") + 1).value is None
    described = [row[0].value for row in book["Columns"].iter_rows(min_row=2)]
    assert "policy_no" in described and "Total_Score" in described

    parquet = await client.get(f"/api/exports/{name}/detailed", params={"format": "parquet"}, headers=user["headers"])
    assert parquet.status_code == 200 and "_detailed.parquet" in parquet.headers["content-disposition"]
    assert parquet.headers["content-type"].startswith("application/vnd.apache.parquet")
    table = pq.read_table(io.BytesIO(parquet.content))
    assert table.column_names[:8] == list(rows[0])[:8] and table.num_rows == 5
    typed = table.to_pylist()
    assert [r["policy_no"] for r in typed] == [r["input"]["policy_no"] for r in records]
    assert typed[0]["lat"] == float(seattle["lat"]) and typed[2]["low_confidence"] is True
    assert typed[1]["Total_Score"] is None and typed[0]["row"] == 2


async def test_the_spec_csv_of_a_batch_is_made_from_its_dataset(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "spec-csv@example.com")
    name = await _finished_export(client, container, user["headers"])
    download = await client.get(f"/api/download/{name}", headers=user["headers"])
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    assert name in download.headers["content-disposition"]
    view = await client.get(f"/api/view-export/{name}", headers=user["headers"])
    assert view.content == download.content
    table = list(csv.DictReader(io.StringIO(download.text)))
    addresses = [row["address"].splitlines()[0] for row in table if row["address"]]
    assert len(addresses) == 5 and addresses[0].startswith("701 5th Ave") and addresses[4] == addresses[0]


async def test_detailed_exports_are_owner_scoped_and_formats_checked(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann-detail@example.com")
    bob = await sign_up_and_log_in(client, "bob-detail@example.com")
    name = await _finished_export(client, container, ann["headers"])
    assert (await client.get(f"/api/exports/{name}/detailed", headers=bob["headers"])).status_code == 404
    wrong = await client.get(f"/api/exports/{name}/detailed", params={"format": "pdf"}, headers=ann["headers"])
    assert wrong.status_code == 400
    # Rows a client sent have no detailed version, and say so.
    stored = await client.post("/api/export", json={"data": [{"address": "1 Main St", "occupants": []}]}, headers=ann["headers"])
    client_name = stored.json()["file_path"].split("/", 1)[1]
    none = await client.get(f"/api/exports/{client_name}/detailed", headers=ann["headers"])
    assert none.status_code == 404 and "no detailed version" in none.json()["error"]


# Column names a spreadsheet would run as formulas, in the header of the upload.
FORMULA_HEADERS = ['=HYPERLINK("http://evil.example","x")', "@Note", "+x", "-y"]
NEUTRALISED_HEADERS = ["'" + name for name in FORMULA_HEADERS]
FORMULA_HEADER_UPLOAD = (
    '"=HYPERLINK(""http://evil.example"",""x"")",@Note,+x,-y,Street Address,City,State,Zip\n'
    "h,n,1,2,701 5th Ave,Seattle,WA,98104\n"
)


async def test_the_users_header_cells_are_neutralised_in_every_format(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "header-cells@example.com")
    name = await _finished_export(client, container, user["headers"], FORMULA_HEADER_UPLOAD)

    async def detailed(fmt: str) -> bytes:
        answer = await client.get(f"/api/exports/{name}/detailed", params={"format": fmt}, headers=user["headers"])
        assert answer.status_code == 200, answer.text
        return answer.content

    table = list(csv.reader(io.StringIO((await detailed("csv")).decode("utf-8-sig"))))
    assert table[0][:4] == NEUTRALISED_HEADERS and table[1][:4] == ["h", "n", "1", "2"]  # each value under its name
    book = openpyxl.load_workbook(io.BytesIO(await detailed("xlsx")))
    assert [cell.value for cell in book["Rows"][1]][:4] == NEUTRALISED_HEADERS
    assert [cell.value for cell in book["Rows"][2]][:4] == ["h", "n", 1, 2]  # numbers as numbers
    described = [row[0].value for row in book["Columns"].iter_rows(min_row=2, max_row=5)]
    assert described == NEUTRALISED_HEADERS
    record = json.loads((await detailed("jsonl")).decode().splitlines()[0])
    # JSON Lines and Parquet are no spreadsheets: names and values as they came.
    assert list(record["input"])[:4] == FORMULA_HEADERS and list(record["input"].values())[:4] == ["h", "n", "1", "2"]
    assert pq.read_table(io.BytesIO(await detailed("parquet"))).column_names[:4] == FORMULA_HEADERS
