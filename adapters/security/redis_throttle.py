"""`AttemptThrottle` and `RequestWindow` in Redis, for deployments that already run it: one Lua
script per attempt, which Redis runs atomically (the same model as domain/throttling.py and
adapters/db/throttle.py)."""

from __future__ import annotations

import hashlib

from redis.asyncio import BlockingConnectionPool, Redis

from application.ports.clock import Clock
from domain.throttling import ThrottleRule

ATTEMPT_SCRIPT = """
local now, free, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local first_wait, max_wait = tonumber(ARGV[4]), tonumber(ARGV[5])
local attempts = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
if attempts == 0 or last <= now - window then
  attempts = 1
else
  if attempts >= free then
    local wait = math.min(max_wait, first_wait * 2 ^ math.min(attempts - free, 32))
    if last + wait > now then
      return tostring(last + wait - now)
    end
  end
  attempts = attempts + 1
end
redis.call('HSET', KEYS[1], 'attempts', attempts, 'last', ARGV[1])
redis.call('EXPIRE', KEYS[1], window)
return '0'
"""


def redis_client(url: str, max_connections: int = 50) -> Redis:
    """A bounded pool that makes a burst wait for a connection instead of failing."""
    return Redis(connection_pool=BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=10))


REFUND_SCRIPT = """
if tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0') > 0 then
  redis.call('HINCRBY', KEYS[1], 'attempts', -1)
end
return 0
"""


class RedisAttemptThrottle:
    def __init__(self, redis: Redis, clock: Clock, prefix: str = "perilscope:throttle:") -> None:
        self._redis = redis
        self._clock = clock
        self._prefix = prefix
        self._script = redis.register_script(ATTEMPT_SCRIPT)
        self._refund = redis.register_script(REFUND_SCRIPT)

    def _key(self, key: str) -> str:
        return self._prefix + hashlib.sha256(key.encode()).hexdigest()

    async def attempt(self, key: str, rule: ThrottleRule) -> float:
        now = self._clock.now().timestamp()
        wait = float(
            await self._script(
                keys=[self._key(key)],
                args=[repr(now), rule.free, rule.window_seconds, rule.first_wait_seconds, rule.max_wait_seconds],
            )
        )
        return 0.0 if wait == 0 else max(wait, 1.0)

    async def refund(self, key: str) -> None:
        await self._refund(keys=[self._key(key)])

    async def clear(self, key: str) -> None:
        await self._redis.delete(self._key(key))


# One counter per key and window, gone with its window: INCR then, for a new counter, its expiry.
REQUEST_WINDOW_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count
"""


class RedisRequestWindow:
    def __init__(self, redis: Redis, clock: Clock, prefix: str = "perilscope:requests:") -> None:
        self._clock = clock
        self._prefix = prefix
        self._script = redis.register_script(REQUEST_WINDOW_SCRIPT)

    async def admit(self, key: str, limit: int, window_seconds: int) -> float:
        now = self._clock.now().timestamp()
        window = int(now // window_seconds)
        counter = f"{self._prefix}{hashlib.sha256(key.encode()).hexdigest()}:{window}"
        count = int(await self._script(keys=[counter], args=[window_seconds + 1]))
        return 0.0 if count <= limit else max((window + 1) * window_seconds - now, 1.0)
