"""The Lua scripts the Redis limiter runs: each call is one atomic step and one round trip.

Every script mirrors accounting.py (refill, predicate, settle arithmetic) and memory._Counters.advance (lease
expiry, month rollover); keep them in step. All keys of one call share the tenant's hash tag, so a script only
touches one Redis Cluster slot. Numbers are Lua doubles holding integers below 2**53; they are written back with
'%.0f' because Redis would otherwise format them with 14 significant digits.

Per scope, two keys:
  state hash: ts (last refill, ms), rl / tl (requests / tokens bucket level in 1/60000 token units; absent when
              that dimension is unlimited), bm (budget month: year*12 + month-1), bu (settled tokens this month),
              br (tokens reserved by in-flight requests), u:<lease member> (tokens the call had used at its
              last renewal, while its lease is open)
  lease zset: member "<admission id>:<reserved tokens>", score = lease expiry ms
"""

from __future__ import annotations

# Arguments shared by the scripts: ARGV[1] is "now" in ms, or "" to use the Redis server's own clock (one clock
# for every gateway replica); a scope's limits use -1 for "unlimited". The scopes' limits travel as one argument,
# integers separated by spaces (``numbers`` splits it): redis-py packs each argument of a call in Python, which cost
# more per request than the script itself.
PRELUDE = r"""
local UNIT = 60000
local MAX_REFILL_MS = 2 * UNIT

local function fmt(n) return string.format('%.0f', n) end

local function now_ms(arg)
  if arg ~= '' then return tonumber(arg) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Days since 1970-01-01 to the civil calendar (H. Hinnant's algorithm), as year*12 + month-1.
local function month_index(ms)
  local z = math.floor(ms / 86400000) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y * 12 + (m - 1)
end

local function refill(level, last, now, per_minute)
  if per_minute < 0 then return nil end
  local capacity = per_minute * UNIT
  if level == nil or last == nil then return capacity end
  local elapsed = now - last
  if elapsed < 0 then elapsed = 0 end
  if elapsed > MAX_REFILL_MS then elapsed = MAX_REFILL_MS end
  return math.min(capacity, level + elapsed * per_minute)
end

local function lease_tokens(member)
  return tonumber(string.match(member, ':(%d+)$'))
end

-- What a lapsed lease is charged: the tokens its call had used at its last renewal when the worker reported them
-- (the known use; at most one renewal interval of output is missed), else its whole reservation, the most the call
-- can have used (its tokens may have reached the client; nothing settled them).
local function lapse_charge(state_key, member)
  local reserved = lease_tokens(member)
  local used = tonumber(redis.call('HGET', state_key, 'u:' .. member))
  if used ~= nil and used < reserved then return used end
  return reserved
end

-- Bring one scope to `now`: refill, roll the budget month, expire leases (charging their reservations).
local function advance(state_key, lease_key, now, rpm, tpm)
  local h = redis.call('HMGET', state_key, 'ts', 'rl', 'tl', 'bm', 'bu', 'br')
  local last = tonumber(h[1])
  local s = {}
  s.ts = now
  if last ~= nil and last > now then s.ts = last end
  s.rl = refill(tonumber(h[2]), last, now, rpm)
  s.tl = refill(tonumber(h[3]), last, now, tpm)
  s.bm = tonumber(h[4])
  s.bu = tonumber(h[5]) or 0
  s.br = tonumber(h[6]) or 0
  local month = month_index(now)
  if s.bm ~= month then
    s.bm = month
    s.bu = 0
  end
  -- A lapsed lease belonged to a worker that died mid-call: free its slot and charge it (lapse_charge); the
  -- part of its reservation not charged goes back to the tokens bucket, as a settle would return it.
  local expired = redis.call('ZRANGEBYSCORE', lease_key, '-inf', now)
  for _, member in ipairs(expired) do
    local reserved = lease_tokens(member)
    local charged = lapse_charge(state_key, member)
    s.br = s.br - reserved
    s.bu = s.bu + charged
    if s.tl ~= nil and tpm >= 0 then s.tl = math.min(tpm * UNIT, s.tl + (reserved - charged) * UNIT) end
    redis.call('HDEL', state_key, 'u:' .. member)
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', lease_key, '-inf', now) end
  if s.br < 0 then s.br = 0 end
  s.in_flight = redis.call('ZCARD', lease_key)
  return s
end

local function save(state_key, s, state_ttl_ms)
  redis.call('HSET', state_key, 'ts', fmt(s.ts), 'bm', fmt(s.bm), 'bu', fmt(s.bu), 'br', fmt(s.br))
  if s.rl ~= nil then redis.call('HSET', state_key, 'rl', fmt(s.rl)) else redis.call('HDEL', state_key, 'rl') end
  if s.tl ~= nil then redis.call('HSET', state_key, 'tl', fmt(s.tl)) else redis.call('HDEL', state_key, 'tl') end
  redis.call('PEXPIRE', state_key, state_ttl_ms)
end

local function numbers(text)
  local out = {}
  for word in string.gmatch(text, '%S+') do table.insert(out, tonumber(word)) end
  return out
end

local function opt(n)
  if n == nil then return '' end
  return fmt(n)
end
"""

# KEYS: state, lease per scope (tenant first). ARGV: now, member, reserve, lease_ms, state_ttl_ms, n_scopes,
# limits: per scope rpm, tpm, max_concurrent, monthly_budget (one string, see PRELUDE).
# Returns {admitted, now, then per scope: rl, tl, in_flight, bu, br as seen before this request took anything}.
ADMIT = (
    PRELUDE
    + r"""
local now = now_ms(ARGV[1])
local member = ARGV[2]
local reserve = tonumber(ARGV[3])
local lease_ms = tonumber(ARGV[4])
local state_ttl_ms = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local limits = numbers(ARGV[7])
local scopes = {}
local admitted = 1
for i = 1, n do
  local base = (i - 1) * 4
  local rpm, tpm = limits[base + 1], limits[base + 2]
  local concurrency, budget = limits[base + 3], limits[base + 4]
  local s = advance(KEYS[2 * i - 1], KEYS[2 * i], now, rpm, tpm)
  -- The predicate of accounting.refusals().
  if s.rl ~= nil and s.rl < UNIT then admitted = 0 end
  if s.tl ~= nil and s.tl < reserve * UNIT then admitted = 0 end
  if concurrency >= 0 and s.in_flight >= concurrency then admitted = 0 end
  if budget >= 0 and s.bu + s.br + reserve > budget then admitted = 0 end
  scopes[i] = s
end
local out = {admitted, fmt(now)}
for i = 1, n do
  local s = scopes[i]
  table.insert(out, opt(s.rl))
  table.insert(out, opt(s.tl))
  table.insert(out, s.in_flight)
  table.insert(out, fmt(s.bu))
  table.insert(out, fmt(s.br))
  if admitted == 1 then
    if s.rl ~= nil then s.rl = s.rl - UNIT end
    if s.tl ~= nil then s.tl = s.tl - reserve * UNIT end
    s.br = s.br + reserve
    redis.call('ZADD', KEYS[2 * i], fmt(now + lease_ms), member)
  end
  save(KEYS[2 * i - 1], s, state_ttl_ms)
  -- As long-lived as the state: a lapsed lease must still be there to be swept (and charged) by a later call.
  redis.call('PEXPIRE', KEYS[2 * i], state_ttl_ms)
end
return out
"""
)

# KEYS: as ADMIT. ARGV: now, member, reserved, used, state_ttl_ms, n_scopes, limits: per scope rpm, tpm (one
# string).
# Returns 1 when this call settled the admission, 0 when it was already settled or its lease had expired.
SETTLE = (
    PRELUDE
    + r"""
local now = now_ms(ARGV[1])
local member = ARGV[2]
local reserved = tonumber(ARGV[3])
local used = tonumber(ARGV[4])
local state_ttl_ms = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local expiry = tonumber(redis.call('ZSCORE', KEYS[2], member))
if expiry == nil or expiry <= now then return 0 end
local limits = numbers(ARGV[7])
for i = 1, n do
  local base = (i - 1) * 2
  local tpm = limits[base + 2]
  local s = advance(KEYS[2 * i - 1], KEYS[2 * i], now, limits[base + 1], tpm)
  if s.tl ~= nil then
    local capacity = tpm * UNIT
    s.tl = math.max(-capacity, math.min(capacity, s.tl + (reserved - used) * UNIT))
  end
  s.br = math.max(s.br - reserved, 0)
  s.bu = s.bu + used
  redis.call('ZREM', KEYS[2 * i], member)
  redis.call('HDEL', KEYS[2 * i - 1], 'u:' .. member)
  save(KEYS[2 * i - 1], s, state_ttl_ms)
end
return 1
"""
)

# KEYS: state, lease of one scope. ARGV: now. Read-only. Returns {month, used (lapsed leases included), reserved by
# live leases}.
USAGE = (
    PRELUDE
    + r"""
local now = now_ms(ARGV[1])
local month = month_index(now)
local h = redis.call('HMGET', KEYS[1], 'bm', 'bu')
local used = 0
if tonumber(h[1]) == month then used = tonumber(h[2]) or 0 end
local reserved = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. fmt(now), '+inf')) do
  reserved = reserved + lease_tokens(member)
end
-- Lapsed leases not yet swept by an admit or settle are charged already, as advance() will charge them.
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', fmt(now))) do
  used = used + lapse_charge(KEYS[1], member)
end
return {month, fmt(used), fmt(reserved)}
"""
)

# KEYS: state, lease of each scope of one admission. ARGV: now, lease_ms, member, used (-1: not known).
# Pushes the lease's expiry to now + lease_ms in every scope where it is still live (a lapsed lease stays lapsed:
# it has been or will be charged) and records the tokens the call has used so far (what a lapse charges). Returns 1
# when the lease was live, 0 otherwise.
RENEW = (
    PRELUDE
    + r"""
local now = now_ms(ARGV[1])
local lease_ms = tonumber(ARGV[2])
local member = ARGV[3]
local used = tonumber(ARGV[4])
local live = 0
for i = 1, #KEYS / 2 do
  local expiry = tonumber(redis.call('ZSCORE', KEYS[2 * i], member))
  if expiry ~= nil and expiry > now then
    redis.call('ZADD', KEYS[2 * i], 'XX', fmt(now + lease_ms), member)
    if used >= 0 then redis.call('HSET', KEYS[2 * i - 1], 'u:' .. member, fmt(used)) end
    if i == 1 then live = 1 end
  end
end
return live
"""
)

# For tests: the script's month arithmetic alone. ARGV: ms. Returns year*12 + month-1.
MONTH_INDEX = PRELUDE + "\nreturn month_index(tonumber(ARGV[1]))\n"
