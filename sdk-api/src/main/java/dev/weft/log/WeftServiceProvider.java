package dev.weft.log;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/** Plugs {@link WeftLoggerFactory} into SLF4J (found through {@code META-INF/services}). */
public final class WeftServiceProvider implements SLF4JServiceProvider {
  private ILoggerFactory factory;
  private IMarkerFactory markers;

  @Override public ILoggerFactory getLoggerFactory() { return factory; }

  @Override public IMarkerFactory getMarkerFactory() { return markers; }

  @Override public MDCAdapter getMDCAdapter() { return new NOPMDCAdapter(); }

  @Override public String getRequestedApiVersion() { return "2.0.99"; }

  @Override
  public void initialize() {
    factory = new WeftLoggerFactory();
    markers = new BasicMarkerFactory();
  }
}
