package dev.baton.console.internal;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The actions a confirmation page offered, each under a one-time id: the confirmed request names the id, and the
 * action runs with what the confirmation page showed (kept here, not sent back by the form), once. A reload or a
 * second POST of the same confirmation finds it used and runs nothing. Kept in this process's memory: at most
 * {@value #MAX} entries, an unconfirmed one for {@link #PENDING_FOR}, a done one (for its result page) for
 * {@link #DONE_FOR}. Thread-safe.
 */
final class Confirmations {
    static final int MAX = 10_000;
    static final Duration PENDING_FOR = Duration.ofMinutes(15);
    static final Duration DONE_FOR = Duration.ofHours(1);

    private static final SecureRandom RANDOM = new SecureRandom();

    /** What the confirmation page offered, as it will run. */
    record Plan(
            String op,
            String queue,
            @Nullable Object id,
            @Nullable String target,
            int n,
            boolean force,
            @Nullable String verdict,
            @Nullable String completion,
            @Nullable String evidence,
            @Nullable String reference,
            @Nullable DeadFilter filter,
            String sentence,
            String back) {}

    /** One offered action: who may confirm it, and once confirmed, who did, when, and what came of it. */
    static final class Entry {
        final String key;
        final Plan plan;
        final String session;
        final String user;
        final Instant offered;

        @Nullable
        Instant started;

        @Nullable
        ActionResult result;

        Entry(String key, Plan plan, String session, String user, Instant offered) {
            this.key = key;
            this.plan = plan;
            this.session = session;
            this.user = user;
            this.offered = offered;
        }
    }

    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();

    /** True if {@code key} looks like one of {@link #offer}'s ids. */
    static boolean wellFormed(@Nullable String key) {
        return key != null && key.matches("[A-Za-z0-9_-]{24}");
    }

    /** Keeps {@code plan} for the session and user, under a new id. */
    String offer(Plan plan, String session, String user) {
        byte[] b = new byte[18];
        RANDOM.nextBytes(b);
        String key = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
        synchronized (entries) {
            expire(Instant.now());
            entries.put(key, new Entry(key, plan, session, user, Instant.now()));
        }
        return key;
    }

    /** The entry of {@code key}, or null when there is none (never offered, lapsed, or the process restarted). */
    @Nullable
    Entry get(@Nullable String key) {
        if (!wellFormed(key)) {
            return null;
        }
        synchronized (entries) {
            expire(Instant.now());
            return entries.get(key);
        }
    }

    /**
     * Marks {@code e} started; false if it had been started already (a reload, a second POST, a double click): the
     * caller then runs nothing.
     */
    boolean start(Entry e) {
        synchronized (entries) {
            if (e.started != null) {
                return false;
            }
            e.started = Instant.now();
            return true;
        }
    }

    void finish(Entry e, ActionResult result) {
        synchronized (entries) {
            e.result = result;
        }
    }

    private void expire(Instant now) {
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Entry e = it.next().getValue();
            boolean lapsed = e.started == null
                    ? e.offered.plus(PENDING_FOR).isBefore(now)
                    : e.result != null && e.started.plus(DONE_FOR).isBefore(now);
            if (lapsed || entries.size() > MAX) {
                if (e.started == null || e.result != null) {
                    it.remove();
                }
            }
        }
    }
}
