package dev.baton.spring.boot;

/** The shared metrics tests on Spring Boot 3.5. */
class BatonMetricsAutoConfigurationTest extends AbstractBatonMetricsAutoConfigurationTest {}
