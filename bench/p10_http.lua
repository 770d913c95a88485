-- SPDX-License-Identifier: GPL-2.0
-- P10's client: wrk -t1 -s p10_http.lua URL, with P10_FILES=N,
-- P10_METHOD and P10_PARAM in the environment.  It asks for /f0, /f1, ...
-- /f(N-1), then from /f0 again, and prints requests/s and latency as bench
-- CSV lines.  With P10_ONCE=1 it fails if the run asked for more than N
-- files: no request may then find a file that an earlier one read.
-- Any error or status other than 200 makes wrk exit with 1.
local n = tonumber(os.getenv("P10_FILES"))
local threads = {}
sent = 0

function setup(thread)
	table.insert(threads, thread)
end

function request()
	local path = "/f" .. (sent % n)

	sent = sent + 1
	return wrk.format("GET", path)
end

function response(status)
	if status ~= 200 then
		io.stderr:write("p10: status " .. status .. "\n")
		os.exit(1)
	end
end

function done(summary, latency)
	local e = summary.errors
	local asked = threads[1]:get("sent")
	local head = "CSV,P10," .. os.getenv("P10_PARAM") .. "," ..
		os.getenv("P10_METHOD") .. ","

	io.write(string.format("%srps,%.1f\n", head,
		summary.requests / (summary.duration / 1e6)))
	io.write(string.format("%srequests,%d\n", head, summary.requests))
	io.write(string.format("%sp50_us,%d\n", head, latency:percentile(50)))
	io.write(string.format("%sp99_us,%d\n", head, latency:percentile(99)))
	if e.connect + e.read + e.write + e.status + e.timeout > 0 then
		io.stderr:write("p10: errors\n")
		os.exit(1)
	end
	if os.getenv("P10_ONCE") == "1" and asked > n then
		io.stderr:write(string.format("p10: asked for %d files of %d: give more (P10_FILES)\n",
			asked, n))
		os.exit(1)
	end
end
