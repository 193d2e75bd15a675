/**
 * The {@code baton} health indicator over Spring Boot 4's health types ({@code org.springframework.boot.health}).
 * {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.health;

import org.jspecify.annotations.NullMarked;
