package dev.baton.spring.boot.console;

import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/**
 * Says at start-up, at WARN, why there is no console when {@code baton.console.enabled=true} but
 * {@code baton-console} is not on the class path (it is an optional dependency of the starter): without this line
 * the console's path is a 404 and nothing tells the operator who turned it on.
 */
@AutoConfiguration
@ConditionalOnProperty(name = "baton.console.enabled", havingValue = "true")
@ConditionalOnMissingClass("dev.baton.console.BatonConsole")
public class BatonConsoleMissingAutoConfiguration {
    /** Logs the warning. */
    public BatonConsoleMissingAutoConfiguration() {
        LoggerFactory.getLogger(BatonConsoleMissingAutoConfiguration.class)
                .warn("baton.console.enabled=true, but there is no console: dev.baton:baton-console is not on the"
                        + " class path (the starter's dependency on it is optional); add it to the application's"
                        + " dependencies");
    }
}
