package dev.baton.spring.boot.console;

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
 */
@ConfigurationProperties("baton.console")
public record BatonConsoleProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("/baton-console") String path,
        @DefaultValue("false") boolean operate,
        @DefaultValue("BATON_READ") String readRole,
        @DefaultValue("BATON_OPERATE") String operateRole) {}
