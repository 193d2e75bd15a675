package dev.baton.spring.boot.console;

import java.time.Duration;
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
        @DefaultValue("false") boolean secureCookie) {}
