package dev.baton.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Seed 000 as a Spring Boot service: {@code POST /orders}, {@code POST /gateway/callback}, the timer job (a worker
 * bean), the expiry sweep ({@code @Scheduled}) and an outbox dispatcher; {@code /actuator/health} and
 * {@code /actuator/baton} show the queues. Without {@code spring.datasource.url} it starts an embedded PostgreSQL.
 */
@SpringBootApplication
@EnableScheduling
public class PaymentApplication {
    /** Starts the service; arguments as for any Spring Boot application ({@code --server.port=9090}). */
    public static void main(String[] args) {
        application().run(args);
    }

    /** The application, with the embedded PostgreSQL used when no data source is configured. */
    public static SpringApplication application() {
        SpringApplication app = new SpringApplication(PaymentApplication.class);
        app.addInitializers(new EmbeddedPostgres());
        return app;
    }
}
