package dev.baton.examples.spring;

import jakarta.servlet.DispatcherType;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may see what: {@code /actuator/health} is open (a load balancer asks it; it shows counts, no row), every other
 * Actuator endpoint ({@code /actuator/baton/{queue}} shows dead rows' errors, which can hold a customer's data) and
 * the console need a user with the role {@code BATON_READ}, over HTTP Basic. The user is Spring Boot's
 * {@code spring.security.user} (application.yml). The service's own API ({@code POST /orders}, the gateway's
 * callback) stays as it was: machines call it, without a session to forge requests with.
 */
@Configuration(proxyBeanMethods = false)
class OpsSecurity {
    static final String CONSOLE = "/baton-console/";

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(a -> a.dispatcherTypeMatchers(DispatcherType.ERROR)
                        .permitAll() // the error page keeps each refusal's status
                        .requestMatchers("/actuator/health", "/actuator/health/**")
                        .permitAll()
                        .requestMatchers("/actuator/**", CONSOLE + "**")
                        .hasRole("BATON_READ")
                        .anyRequest()
                        .permitAll())
                .httpBasic(Customizer.withDefaults())
                // the console checks its own CSRF token on every action; the API has no cookie to ride on
                .csrf(c -> c.ignoringRequestMatchers(r -> r.getRequestURI().startsWith(CONSOLE)
                        || r.getRequestURI().equals("/orders")
                        || r.getRequestURI().equals("/gateway/callback")));
        return http.build();
    }
}
