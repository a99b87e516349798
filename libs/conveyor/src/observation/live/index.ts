export * from './live-event';
export * from './live-publisher.service';
export * from './live-watch-detector.service';
