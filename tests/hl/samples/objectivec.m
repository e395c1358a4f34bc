#import <Foundation/Foundation.h>

// A shape
@interface Circle : NSObject <NSCopying>
@property (nonatomic, assign) double radius;
- (double)area;
+ (instancetype)circleWithRadius:(double)r;
@end

@implementation Circle
- (double)area {
    return M_PI * self.radius * self.radius;
}
+ (instancetype)circleWithRadius:(double)r {
    Circle *c = [[self alloc] init];
    c.radius = r;
    return c;
}
- (id)copyWithZone:(NSZone *)zone { return [Circle circleWithRadius:_radius]; }
@end

int main(int argc, const char *argv[]) {
    @autoreleasepool {
        NSArray *xs = @[@1, @2, @3];
        NSLog(@"Area: %f %@ %d", [[Circle circleWithRadius:2] area], xs, YES);
    }
    return 0;
}
