package dev.baton.spring.boot.console;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The operations console's settings, under {@code baton.console}.
 *
 * @param enabled serve the console (default false)
 * @param path where, a path of the application (default {@code /baton-console})
 * @param operate let users with the operate role act: requeue, resolve, pause, resume (default false: read only)
 * @param readRole the servlet role (Spring Security: the authority {@code ROLE_} + it) that may look (default
 *     {@code BATON_READ})
 * @param operateRole the role that may act (default {@code BATON_OPERATE})
 * @param csrfKey the key of the console's CSRF tokens, at least 32 characters, the same on every instance of the
 *     application so that a form served by one instance is accepted by another and after a deploy (default: none, a
 *     key drawn at start-up, good in that process only); a secret, like a database password
 * @param sessionLifetime how long the console's session cookie and the token of each page are good for, 1 minute to
 *     7 days (default 12 hours)
 * @param secureCookie mark the session cookie Secure on every request, for a proxy that terminates TLS (default
 *     false: only on requests the servlet container sees as secure)
 * @param pageSize rows per page of dead letters and unknown sends, 1 to 500 (default 50)
 * @param maxRequeue the most dead rows one "requeue these many" action moves, 1 to 1000 and at most the queue's batch
 *     limit (default 100)
 * @param sampleInterval how often the queues are measured, at least 1 s (default 10 s)
 * @param samples how many samples the backlog chart shows, 2 to 1000 (default 60)
 * @param attentionAge how old a queue's oldest eligible row may be before the overview says the queue needs
 *     attention, 10 s to 7 days (default 5 minutes)
 * @param refresh how often the overview and a queue's page reload themselves, 0 (default: they do not) or 5 s to 300
 *     s in whole seconds; a page's {@code refresh} parameter overrides it
 * @param auditTable keep the console's audit trail in this table of Baton's own, created at start-up unless it exists,
 *     on the application's DataSource (default: none, the trail is the log and each process's memory)
 * @param deadAtColumns per queue name, the timestamp column the database sets whenever a row changes: a dead row's
 *     time of death, shown and searchable (default: none); a name with {@code :} is given in brackets,
 *     {@code baton.console.dead-at-columns[outbox:orders_outbox]=updated_at}
 * @param referenceColumns per queue name (a queue with unknown sends), the column a "sent" resolution writes the
 *     receiver's reference to (default: none, a typed reference is kept in the audit only)
 */
@ConfigurationProperties("baton.console")
public record BatonConsoleProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("/baton-console") String path,
        @DefaultValue("false") boolean operate,
        @DefaultValue("BATON_READ") String readRole,
        @DefaultValue("BATON_OPERATE") String operateRole,
        @Nullable String csrfKey,
        @DefaultValue("12h") Duration sessionLifetime,
        @DefaultValue("false") boolean secureCookie,
        @DefaultValue("50") int pageSize,
        @DefaultValue("100") int maxRequeue,
        @DefaultValue("10s") Duration sampleInterval,
        @DefaultValue("60") int samples,
        @DefaultValue("5m") Duration attentionAge,
        @DefaultValue("0s") Duration refresh,
        @Nullable String auditTable,
        @DefaultValue Map<String, String> deadAtColumns,
        @DefaultValue Map<String, String> referenceColumns) {
    /** Binds the settings; a missing map is empty. */
    public BatonConsoleProperties {
        deadAtColumns = deadAtColumns == null ? Map.of() : Map.copyOf(deadAtColumns);
        referenceColumns = referenceColumns == null ? Map.of() : Map.copyOf(referenceColumns);
    }
}
