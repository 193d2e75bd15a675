package dev.baton.spring.boot.console;

import dev.baton.Baton;
import dev.baton.ConfigurationException;
import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleAuthenticator;
import dev.baton.spring.boot.BatonAutoConfiguration;
import dev.baton.spring.boot.BatonQueues;
import dev.baton.spring.boot.BatonWorkers;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The operations console ({@code baton-console}) as a servlet under {@code baton.console.path}, when
 * {@code baton.console.enabled=true} in a servlet web application. Users and roles come from a
 * {@link ConsoleAuthenticator} bean if there is one, else from the servlet request ({@code getUserPrincipal},
 * {@code isUserInRole}), which Spring Security fills; in operate mode one of the two must be there (Spring Security:
 * its filter chain in the context), or the context does not start. Spring Security's CSRF filter must leave the
 * console's path alone: the console checks its own token on every action (see {@code docs/src/console.md}).
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass({BatonConsole.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(name = "baton.console.enabled", havingValue = "true")
@ConditionalOnBean(BatonQueues.class)
@EnableConfigurationProperties(BatonConsoleProperties.class)
public class BatonConsoleAutoConfiguration {
    /** The bean {@code @EnableWebSecurity} defines: Spring Security filters this context's requests. */
    static final String SPRING_SECURITY_FILTER = "springSecurityFilterChain";

    /** For Spring. */
    public BatonConsoleAutoConfiguration() {}

    /**
     * The console over the context's queues and outboxes, pausing the context's workers.
     *
     * @param properties {@code baton.console.*}
     * @param queues the queues
     * @param workers the workers
     * @param authenticators a {@link ConsoleAuthenticator} bean, if any
     * @param beans the context, asked whether Spring Security's filter chain is in it
     * @param batons the Baton, for {@code baton.console.audit-table}
     * @param dataSources the application's DataSource, for {@code baton.console.audit-table}
     * @return the console
     * @throws ConfigurationException in operate mode with neither an authenticator bean nor Spring Security's filter
     *     chain; for a setting out of its bounds; with an audit table but no single Baton and DataSource
     */
    @Bean(destroyMethod = "close")
    public BatonConsole batonConsole(
            BatonConsoleProperties properties,
            BatonQueues queues,
            BatonWorkers workers,
            ObjectProvider<ConsoleAuthenticator> authenticators,
            ListableBeanFactory beans,
            ObjectProvider<Baton> batons,
            ObjectProvider<DataSource> dataSources) {
        ConsoleAuthenticator auth = authenticators.getIfUnique();
        if (auth == null) {
            // Spring Security's jar alone authenticates nobody: its filter chain must be in this context
            if (properties.operate() && !beans.containsBean(SPRING_SECURITY_FILTER)) {
                throw new ConfigurationException("baton.console.operate=true needs Spring Security or a"
                        + " ConsoleAuthenticator bean: without one the console cannot tell who may requeue rows and"
                        + " resolve sends (Spring Security counts when its filter chain, bean '"
                        + SPRING_SECURITY_FILTER + "', is in the context)");
            }
            auth = new ServletAuthenticator(properties.readRole(), properties.operateRole());
        }
        BatonConsole.Builder b = BatonConsole.builder()
                .authenticator(auth)
                .operate(properties.operate())
                .sessionLifetime(properties.sessionLifetime())
                .secureCookie(properties.secureCookie())
                .pageSize(properties.pageSize())
                .maxRequeue(properties.maxRequeue())
                .sampleInterval(properties.sampleInterval(), properties.samples())
                .attentionAge(properties.attentionAge())
                .refresh(properties.refresh())
                .workers(() -> workers.running().values());
        String key = properties.csrfKey();
        if (key != null && !key.isEmpty()) {
            b.csrfKey(key);
        }
        queues.queues().values().forEach(b::queue);
        properties.deadAtColumns().forEach(b::deadAtColumn);
        properties.referenceColumns().forEach(b::referenceColumn);
        String audit = properties.auditTable();
        if (audit != null && !audit.isEmpty()) {
            Baton baton = batons.getIfUnique();
            DataSource dataSource = dataSources.getIfUnique();
            if (baton == null || dataSource == null) {
                throw new ConfigurationException("baton.console.audit-table=" + audit
                        + " needs one Baton and one DataSource in the context, to keep the table on");
            }
            b.auditTable(baton, dataSource, audit);
        }
        return b.build();
    }

    /**
     * The servlet at {@code baton.console.path}.
     *
     * @param console the console
     * @param properties {@code baton.console.*}
     * @return the registration
     */
    @Bean
    public ServletRegistrationBean<?> batonConsoleServlet(BatonConsole console, BatonConsoleProperties properties) {
        String path = properties.path().endsWith("/")
                ? properties.path().substring(0, properties.path().length() - 1)
                : properties.path();
        if (!path.startsWith("/") || path.length() < 2 || path.contains("*")) {
            throw new ConfigurationException(
                    "baton.console.path must be a path like /baton-console, was '" + properties.path() + "'");
        }
        ServletRegistrationBean<ConsoleServlet> r =
                new ServletRegistrationBean<>(new ConsoleServlet(console), path + "/*");
        r.setName("batonConsole");
        return r;
    }
}
