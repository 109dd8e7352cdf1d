/** Examples for the public API's documentation: runnable as written once the key is in the environment. */
export const CURL_LOOKUP = `curl -H "X-API-Key: $PERILSCOPE_API_KEY" \\
  --get --data-urlencode "address=701 5th Ave, Seattle, WA 98104" \\
  https://perilscope.example/api/v1/risk-assessment`;

export const CURL_TOKEN = `curl -X POST https://perilscope.example/api/v1/auth/token \\
  -H "Content-Type: application/json" \\
  -d "{\\"api_key\\": \\"$PERILSCOPE_API_KEY\\", \\"scope\\": \\"read\\"}"
# then: -H "Authorization: Bearer <access_token>" for 15 minutes`;

export const CURL_BATCH = `API=https://perilscope.example/api/v1
# 1. Submit (retrying with the same Idempotency-Key never charges twice)
curl -X POST "$API/batch-assessment" \\
  -H "X-API-Key: $PERILSCOPE_API_KEY" -H "Content-Type: application/json" \\
  -H "Idempotency-Key: portfolio-2026-11-25" \\
  -d '{"addresses": [{"address": "701 5th Ave", "city": "Seattle", "state": "WA", "zip": "98104"}],
       "callback_url": "https://hooks.example.com/perilscope"}'
# -> 202 {"status": "queued", "job_id": "3f2b8c1e-...", "export_id": "3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45",
#         "addresses": 1, "eta_seconds": 2, "status_url": "/api/v1/export/status/3f2b8c1e-..."}
EXPORT_ID=3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45

# 2. Poll until "status" is "done" (or wait for the webhook)
curl -H "X-API-Key: $PERILSCOPE_API_KEY" "$API/export/status/$EXPORT_ID"

# 3. Ask for the XLSX export (409 export_not_ready until the batch is done) ...
curl -X POST "$API/export/create" -H "X-API-Key: $PERILSCOPE_API_KEY" \\
  -H "Content-Type: application/json" -d "{\\"export_id\\": \\"$EXPORT_ID\\", \\"format\\": \\"xlsx\\"}"
# -> 200 {"status": "done", "export_id": "3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45.xlsx", ...}

# 4. ... and download the export_id it answered (the format is in the id)
curl -H "X-API-Key: $PERILSCOPE_API_KEY" -o risk.xlsx "$API/export/download/$EXPORT_ID.xlsx"`;

export const PYTHON_LOOKUP = `import os, httpx

api = httpx.Client(base_url="https://perilscope.example/api/v1",
                   headers={"X-API-Key": os.environ["PERILSCOPE_API_KEY"]})
answer = api.get("/risk-assessment", params={"address": "701 5th Ave, Seattle, WA 98104"})
if answer.status_code == 429:
    print("Daily limit reached; try again in", answer.headers["Retry-After"], "seconds")
else:
    answer.raise_for_status()
    risk = answer.json()
    print(risk["total_score"], risk["risk_level"], [r["type"] for r in risk["top_risks"]])
    print("requests left today:", answer.headers["X-RateLimit-Remaining"])`;

export const PYTHON_BATCH = `import os, time, uuid, httpx

api = httpx.Client(base_url="https://perilscope.example/api/v1", timeout=60,
                   headers={"X-API-Key": os.environ["PERILSCOPE_API_KEY"]})
addresses = [{"address": "701 5th Ave", "city": "Seattle", "state": "WA", "zip": "98104"}]

# Submit once: a retry with the same key returns the first answer and charges nothing twice.
submitted = api.post("/batch-assessment", json={"addresses": addresses},
                     headers={"Idempotency-Key": str(uuid.uuid4())})
submitted.raise_for_status()  # 202, status "queued"
export_id = submitted.json()["export_id"]

# Poll (or give a callback_url and wait for the webhook).
while True:
    status = api.get(f"/export/status/{export_id}").raise_for_status().json()
    if status["status"] in ("done", "failed"):
        break
    time.sleep(min(max(status["eta_seconds"] or 2, 2), 30))
if status["status"] == "failed":
    raise SystemExit(status["error"])

# The XLSX export of the batch: its own export_id (the job id + ".xlsx") is what to download.
xlsx = api.post("/export/create", json={"export_id": export_id, "format": "xlsx"}).raise_for_status().json()
download = api.get(f"/export/download/{xlsx['export_id']}").raise_for_status()
with open("risk.xlsx", "wb") as file:
    file.write(download.content)
print(status["progress"]["done"], "addresses ->", "risk.xlsx")`;

export const PYTHON_VERIFY = `import hashlib, hmac, time

def verify(raw_body: bytes, signature_header: str, secret: str, tolerance: int = 300) -> bool:
    """True when X-PerilScope-Signature is ours and at most 5 minutes old."""
    parts = dict(item.split("=", 1) for item in signature_header.split(",") if "=" in item)
    timestamp, received = parts.get("t", ""), parts.get("v1", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False  # missing, or too old: a replay
    signed = timestamp.encode() + b"." + raw_body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, received)  # constant time

# In your handler: verify(request.body, request.headers["X-PerilScope-Signature"], "whsec_...")
# must be the raw bytes as received, before any JSON parsing; answer 2xx within 10 seconds.`;

export const NODE_VERIFY = `const crypto = require('node:crypto');

function verify(rawBody, signatureHeader, secret, toleranceSeconds = 300) {
  const parts = Object.fromEntries(signatureHeader.split(',').map((item) => item.split(/=(.*)/s, 2)));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) {
    return false; // missing, or too old: a replay
  }
  const expected = crypto.createHmac('sha256', secret).update(\`\${parts.t}.\`).update(rawBody).digest('hex');
  const received = Buffer.from(parts.v1 ?? '', 'utf8');
  return received.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(expected, 'utf8'), received); // constant time
}

// Express: app.post('/perilscope', express.raw({ type: 'application/json' }), (req, res) => {
//   if (!verify(req.body, req.get('X-PerilScope-Signature'), process.env.PERILSCOPE_WEBHOOK_SECRET)) {
//     return res.sendStatus(400);
//   }
//   res.sendStatus(204); // within 10 seconds; do the work afterwards
// });`;
