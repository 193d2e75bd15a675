package dev.baton.spring.boot;

/** The shared tracing tests on Spring Boot 3.5. */
class BatonTracingAutoConfigurationTest extends AbstractBatonTracingAutoConfigurationTest {}
